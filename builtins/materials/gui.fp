#version 140
// Sinew's stand-in for Defold's built-in GUI fragment program: the node's texture (white for a
// node without one) times its premultiplied colour.

in mediump vec2 var_texcoord0;
in lowp vec4 var_color;

out vec4 out_fragColor;

uniform lowp sampler2D texture_sampler;

void main()
{
    out_fragColor = texture(texture_sampler, var_texcoord0.xy) * var_color;
}
