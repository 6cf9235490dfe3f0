#version 140
// Sinew's stand-in for Defold's built-in sprite fragment program: the atlas texel times the
// premultiplied tint.

in mediump vec2 var_texcoord0;

out vec4 out_fragColor;

uniform mediump sampler2D texture_sampler;

uniform fs_uniforms
{
    mediump vec4 tint;
};

void main()
{
    // Textures are premultiplied, so the tint is too.
    vec4 tint_pm = vec4(tint.xyz * tint.w, tint.w);
    out_fragColor = texture(texture_sampler, var_texcoord0.xy) * tint_pm;
}
