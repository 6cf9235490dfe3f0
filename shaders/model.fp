#version 140

// Built-in model fragment program, glTF's colour conventions: base colour and emissive textures
// are sRGB-encoded and decoded here; factors, vertex colours, tint, lights and ambient are
// linear; lighting is linear (Lambert, ambient plus up to 8 directional/point lights; unused
// slots have a zero colour); the result is sRGB-encoded for the 8-bit frame buffer.
// Occlusion darkens the ambient term only (glTF: it applies to indirect light).
in vec3 var_position;
in vec3 var_normal;
in vec2 var_texcoord0; // the base colour texture's set
in vec2 var_texcoord_set0;
in vec2 var_texcoord_set1;
in vec4 var_tangent;
in vec4 var_color;

uniform sampler2D tex0;          // base colour (sRGB)
uniform sampler2D normal_map;    // tangent-space normals (linear)
uniform sampler2D emissive_map;  // sRGB
uniform sampler2D occlusion_map; // red channel (linear)
uniform vec4 base_color;   // glTF baseColorFactor
uniform vec4 tint;         // material constant, settable per instance
uniform vec4 emissive_factor;   // rgb: emissiveFactor x emissive strength
uniform vec4 texcoord_sets;     // texcoord set of (base colour,) normal, emissive, occlusion
uniform float normal_scale;     // 0: no normal map
uniform float occlusion_strength; // 0: no occlusion map
uniform float alpha_cutoff; // glTF alphaCutoff for MASK, else 0
uniform float alpha_opaque; // 1 for OPAQUE and MASK (alpha is ignored), 0 for BLEND
uniform vec4 ambient;
// View space. w = 0: directional, xyz points towards the light; w = 1: point light position.
uniform vec4 light_position[8];
uniform vec4 light_color[8]; // rgb = colour x intensity

out vec4 out_color;

vec3 srgb_to_linear(vec3 c)
{
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

vec3 linear_to_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

vec2 uv(float set)
{
    return set > 0.5 ? var_texcoord_set1 : var_texcoord_set0;
}

void main()
{
    vec4 texel = texture(tex0, var_texcoord0);
    vec4 albedo = vec4(srgb_to_linear(texel.rgb), texel.a) * base_color * var_color * tint;
    if (albedo.a < alpha_cutoff)
        discard;
    vec3 n = normalize(var_normal);
    if (!gl_FrontFacing)
        n = -n; // double-sided materials light their back faces too
    if (normal_scale != 0.0)
    {
        vec3 m = texture(normal_map, uv(texcoord_sets.y)).xyz * 2.0 - 1.0;
        m.xy *= normal_scale;
        vec3 t = var_tangent.xyz - n * dot(n, var_tangent.xyz);
        if (dot(t, t) > 1e-12)
        {
            t = normalize(t);
            vec3 b = cross(n, t) * var_tangent.w;
            n = normalize(mat3(t, b, n) * m);
        }
    }
    float ao = 1.0;
    if (occlusion_strength != 0.0)
        ao = 1.0 + occlusion_strength * (texture(occlusion_map, uv(texcoord_sets.w)).r - 1.0);
    vec3 light = ambient.rgb * ao;
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
    vec3 emissive = emissive_factor.rgb * srgb_to_linear(texture(emissive_map, uv(texcoord_sets.z)).rgb);
    out_color = vec4(linear_to_srgb(albedo.rgb * light + emissive), mix(albedo.a, 1.0, alpha_opaque));
}
