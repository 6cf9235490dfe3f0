#version 140

// Debug cube fragment program: one directional light plus ambient.
in vec3 var_normal;

uniform vec4 tint;

out vec4 out_color;

void main()
{
    const vec3 light_dir = vec3(0.4319342, 0.8638684, 0.2591605); // towards the light: normalize(0.5, 1.0, 0.3)
    float diffuse = max(dot(normalize(var_normal), light_dir), 0.0);
    float shade = 0.35 + 0.65 * diffuse;
    out_color = vec4(tint.rgb * shade, tint.a);
}
