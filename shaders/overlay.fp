#version 140

// Overlay fragment program: a negative u means a solid line; otherwise the font atlas's
// coverage (red channel) is the alpha.
in vec2 var_texcoord0;
in vec4 var_color;

uniform sampler2D font;

out vec4 out_color;

void main()
{
    float a = var_texcoord0.x < 0.0 ? 1.0 : texture(font, var_texcoord0).r;
    if (a < 0.5) discard;
    out_color = vec4(var_color.rgb, var_color.a);
}
