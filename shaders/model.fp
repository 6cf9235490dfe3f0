#version 140

// Built-in model fragment program: tex0 x base colour x vertex colour x tint, lit by ambient
// plus up to 8 directional/point lights (Lambert). Unused light slots have a zero colour.
in vec3 var_position;
in vec3 var_normal;
in vec2 var_texcoord0;
in vec4 var_color;

uniform sampler2D tex0;
uniform vec4 base_color;   // glTF baseColorFactor
uniform vec4 tint;         // material constant, settable per instance
uniform float alpha_cutoff; // glTF alphaCutoff for MASK, else 0
uniform float alpha_opaque; // 1 for OPAQUE and MASK (alpha is ignored), 0 for BLEND
uniform vec4 ambient;
// View space. w = 0: directional, xyz points towards the light; w = 1: point light position.
uniform vec4 light_position[8];
uniform vec4 light_color[8]; // rgb = colour x intensity

out vec4 out_color;

void main()
{
    vec4 albedo = texture(tex0, var_texcoord0) * base_color * var_color * tint;
    if (albedo.a < alpha_cutoff)
        discard;
    vec3 n = normalize(var_normal);
    if (!gl_FrontFacing)
        n = -n; // double-sided materials light their back faces too
    vec3 light = ambient.rgb;
    for (int i = 0; i < 8; ++i)
    {
        if (dot(light_color[i].rgb, vec3(1.0)) <= 0.0)
            continue;
        vec3 l = light_position[i].xyz - var_position * light_position[i].w;
        float d2 = dot(l, l);
        // Point lights fall off as 1 / (1 + d^2); directional lights do not fall off.
        float atten = mix(1.0, 1.0 / (1.0 + d2), light_position[i].w);
        light += light_color[i].rgb * max(dot(n, l * inversesqrt(max(d2, 1e-12))), 0.0) * atten;
    }
    out_color = vec4(albedo.rgb * light, mix(albedo.a, 1.0, alpha_opaque));
}
