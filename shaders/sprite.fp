#version 140

// Built-in sprite fragment program: the page texel times the tint, premultiplied, for
// Defold's sprite blend factors (alpha: ONE, ONE_MINUS_SRC_ALPHA).
in vec2 var_texcoord0;
in vec4 var_color;

uniform sampler2D texture_sampler;

out vec4 out_color;

void main()
{
    vec4 c = texture(texture_sampler, var_texcoord0) * var_color;
    out_color = vec4(c.rgb * c.a, c.a);
}
