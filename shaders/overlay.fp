#version 140

// Overlay fragment program: a negative u means a solid line; otherwise the glyph atlas's
// coverage (red channel) times the colour's alpha is the alpha (text is blended).
in vec2 var_texcoord0;
in vec4 var_color;

uniform sampler2D font;

out vec4 out_color;

void main()
{
    float a = var_texcoord0.x < 0.0 ? 1.0 : texture(font, var_texcoord0).r;
    a *= var_color.a;
    if (a < 1.0 / 255.0) discard;
    out_color = vec4(var_color.rgb, a);
}
