#version 140

// Inverts the texel, then multiplies by `tint` and adds `offset` (material constants a script
// may set per sprite with go.set).
in vec2 var_texcoord0;
in float var_page_index;

uniform sampler2D texture_sampler;

uniform fs_uniforms
{
    vec4 tint;
    vec4 offset;
};

out vec4 out_color;

void main()
{
    vec4 c = texture(texture_sampler, var_texcoord0);
    out_color = vec4((vec3(1.0) - c.rgb) * tint.rgb + offset.rgb + var_page_index, 1.0);
}
