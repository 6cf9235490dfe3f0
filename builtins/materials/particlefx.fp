#version 140
// Sinew's stand-in for Defold's built-in particle fragment program: the atlas texel times the
// particle's colour and the premultiplied tint.

in mediump vec2 var_texcoord0;
in mediump vec4 var_color;

out vec4 out_fragColor;

uniform mediump sampler2D texture_sampler;

uniform fs_uniforms
{
    mediump vec4 tint;
};

void main()
{
    // Textures are premultiplied, so the colour and tint are too.
    vec4 tint_pm = vec4(tint.xyz * tint.w, tint.w);
    vec4 color_pm = vec4(var_color.xyz * var_color.w, var_color.w);
    out_fragColor = texture(texture_sampler, var_texcoord0.xy) * color_pm * tint_pm;
}
