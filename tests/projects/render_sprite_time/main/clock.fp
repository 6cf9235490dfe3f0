#version 140

// Shows Defold's CONSTANT_TYPE_TIME: red is the game's seconds / 4, green the frame's dt x 10.
in vec2 var_texcoord0;
in float var_page_index;

uniform sampler2D texture_sampler;

uniform fs_uniforms
{
    vec4 time_data;
};

out vec4 out_color;

void main()
{
    vec4 c = texture(texture_sampler, var_texcoord0);
    out_color = vec4(time_data.x / 4.0, time_data.y * 10.0, 0.0, 1.0) * c;
}
