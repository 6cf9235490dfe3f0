#version 140

// GUI fragment program. mode 0: the vertex colour; 1: glyph coverage (red) times the colour's
// alpha; 2: the texture times the colour.
in vec2 var_texcoord0;
in vec4 var_color;

uniform sampler2D texture_sampler;
uniform int mode;

out vec4 out_color;

void main()
{
    if (mode == 1) {
        float a = texture(texture_sampler, var_texcoord0).r * var_color.a;
        if (a < 1.0 / 255.0) discard;
        out_color = vec4(var_color.rgb, a);
    } else if (mode == 2) {
        vec4 c = texture(texture_sampler, var_texcoord0) * var_color;
        if (c.a < 1.0 / 255.0) discard;
        out_color = c;
    } else {
        out_color = var_color;
    }
}
