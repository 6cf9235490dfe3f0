#version 140
in mediump vec2 var_texcoord0;
in lowp vec4 var_color;
out vec4 out_fragColor;
uniform lowp sampler2D texture_sampler;
void main()
{
    out_fragColor = texture(texture_sampler, var_texcoord0) * var_color * 0.5;
}
