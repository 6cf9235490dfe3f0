#version 140

// Built-in model fragment program, glTF's colour conventions: base colour and emissive textures
// hold sRGB-encoded colours, factors, vertex colours, tint, lights and ambient are linear;
// lighting is linear; the result is exposed, tone mapped and sRGB-encoded for the 8-bit frame
// buffer. Occlusion darkens the ambient term only (glTF: it applies to indirect light).
//
// Two lighting models (the project's `shading`, or the material's `material_shading` constant):
// 0 Lambert: colour x (ambient + sum of N.L x light).
// 1 glTF 2.0 metallic-roughness, the specification's Appendix B: Lambert diffuse of the
//   non-metal part, GGX distribution, height-correlated Smith visibility, Schlick Fresnel mixing
//   diffuse and specular. Light units: a light of intensity 1 gives a white surface facing it the
//   diffuse value 1 (the BRDF is multiplied by pi), i.e. three.js's lights at intensity pi,
//   ambient included (three.js since r155 divides diffuse by pi).
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
uniform sampler2D metallic_roughness_map; // green: roughness, blue: metalness (linear)
uniform vec4 base_color;   // glTF baseColorFactor
uniform vec4 tint;         // material constant, settable per instance
uniform vec4 emissive_factor;   // rgb: emissiveFactor x emissive strength
uniform vec4 texcoord_sets;     // texcoord set of (base colour,) normal, emissive, occlusion
uniform vec4 metallic_roughness; // metallic, roughness, the map's set, 1 with a map
uniform float normal_scale;     // 0: no normal map
uniform float occlusion_strength; // 0: no occlusion map
uniform float alpha_cutoff; // glTF alphaCutoff for MASK, else 0
uniform float alpha_opaque; // 1 for OPAQUE and MASK (alpha is ignored), 0 for BLEND
uniform vec4 texture_srgb; // x base colour, y emissive: 1 when stored as sRGB (decoded before filtering)
uniform float shading_model; // the project's shading
uniform vec4 material_shading; // x < 0: the project's; 0: Lambert; 1: metallic-roughness
uniform float tone_mapping; // 0 none, 1 ACES, 2 AgX
uniform float exposure;
uniform mat4 mtx_proj;
uniform vec4 ambient;
// View space. w = 0: directional, xyz points towards the light; w = 1: point light position.
uniform vec4 light_position[8];
uniform vec4 light_color[8]; // rgb = colour x intensity
// Shadows of the first directional light (project setting `shadows`, see render::shadow).
uniform sampler2DShadow shadow_map; // depth, compared in hardware, linear filtering
uniform mat4 mtx_shadow;    // view space -> map: xy texture coordinates, z depth
uniform vec4 shadow_params; // x: the shadowed light's slot (-1: none), y: a texel in world units, z: in uv
uniform float shadow_receive; // 0: this model's receive_shadows is off

out vec4 out_color;

const float PI = 3.14159265;

vec3 srgb_to_linear(vec3 c)
{
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

vec3 linear_to_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

// A colour texel as linear RGB, whichever way the texture is stored (`srgb` > 0.5: the GPU
// decoded it; else raw sRGB bytes, decoded here after filtering).
vec4 colour_texel(sampler2D s, vec2 uv, float srgb)
{
    vec4 t = texture(s, uv);
    return srgb > 0.5 ? t : vec4(srgb_to_linear(t.rgb), t.a);
}

vec2 uv(float set)
{
    return set > 0.5 ? var_texcoord_set1 : var_texcoord_set0;
}

// three.js's ACESFilmicToneMapping (Narkowicz's fit with its 1 / 0.6 exposure scale).
vec3 aces(vec3 c)
{
    const mat3 m_in = mat3(vec3(0.59719, 0.07600, 0.02840), vec3(0.35458, 0.90834, 0.13383),
                           vec3(0.04823, 0.01566, 0.83777));
    const mat3 m_out = mat3(vec3(1.60475, -0.10208, -0.00327), vec3(-0.53108, 1.10813, -0.07276),
                            vec3(-0.07367, -0.00605, 1.07602));
    c = m_in * (c / 0.6);
    c = (c * (c + 0.0245786) - 0.000090537) / (c * (0.983729 * c + 0.4329510) + 0.238081);
    return clamp(m_out * c, 0.0, 1.0);
}

// three.js's AgXToneMapping (Filament's fit of Blender's AgX, Rec. 2020 working space).
vec3 agx(vec3 c)
{
    const mat3 srgb_to_2020 = mat3(vec3(0.6274, 0.0691, 0.0164), vec3(0.3293, 0.9195, 0.0880),
                                   vec3(0.0433, 0.0113, 0.8956));
    const mat3 rec2020_to_srgb = mat3(vec3(1.6605, -0.1246, -0.0182), vec3(-0.5876, 1.1329, -0.1006),
                                      vec3(-0.0728, -0.0083, 1.1187));
    const mat3 inset = mat3(vec3(0.856627153315983, 0.137318972929847, 0.11189821299995),
                            vec3(0.0951212405381588, 0.761241990602591, 0.0767994186031903),
                            vec3(0.0482516061458583, 0.101439036467562, 0.811302368396859));
    const mat3 outset = mat3(vec3(1.1271005818144368, -0.1413297634984383, -0.14132976349843826),
                             vec3(-0.11060664309660323, 1.157823702216272, -0.11060664309660294),
                             vec3(-0.016493938717834573, -0.016493938717834257, 1.2519364065950405));
    const float min_ev = -12.47393;
    const float max_ev = 4.026069;
    c = inset * (srgb_to_2020 * c);
    c = clamp((log2(max(c, 1e-10)) - min_ev) / (max_ev - min_ev), 0.0, 1.0);
    vec3 x2 = c * c;
    vec3 x4 = x2 * x2;
    c = 15.5 * x4 * x2 - 40.14 * x4 * c + 31.96 * x4 - 6.868 * x2 * c + 0.4298 * x2 + 0.1191 * c - 0.00232;
    c = pow(max(outset * c, 0.0), vec3(2.2));
    return clamp(rec2020_to_srgb * c, 0.0, 1.0);
}

vec3 tone_map(vec3 c)
{
    c *= exposure > 0.0 ? exposure : 1.0;
    if (tone_mapping > 1.5)
        return agx(c);
    if (tone_mapping > 0.5)
        return aces(c);
    return c;
}

// Appendix B's specular lobe without Fresnel: V x D, height-correlated Smith-GGX visibility and
// the GGX distribution, for alpha = roughness^2.
float specular_vd(float nl, float nv, float nh, float alpha)
{
    float a2 = alpha * alpha;
    float vl = nl + sqrt(a2 + (1.0 - a2) * nl * nl);
    float vv = nv + sqrt(a2 + (1.0 - a2) * nv * nv);
    float d = nh * nh * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d * vl * vv);
}

// How much of the shadowing light reaches this point, 0..1. The lookup starts from a point
// pushed off the surface along its geometric normal by one texel, up to three where the light
// grazes the surface (where depth acne starts), so the depth pass needs only a small bias and
// contact shadows stay attached. Four taps 1.5 texels apart, each a 2x2 bilinear comparison,
// give an edge about three and a half texels soft: on llvmpipe each tap costs about as much as
// the rest of the shader, so four rather than nine. Outside the map (beyond shadow_distance)
// nothing is shadowed.
float shadow_factor(vec3 geometric_n, vec3 l)
{
    float grazing = 1.0 - clamp(dot(geometric_n, l), 0.0, 1.0);
    vec3 p = var_position + geometric_n * shadow_params.y * (1.0 + 2.0 * grazing);
    vec3 s = (mtx_shadow * vec4(p, 1.0)).xyz;
    // No early return: on a SIMD rasteriser (llvmpipe) a branch that differs between pixels
    // runs both ways anyway, and the lookups below stay in uniform control flow.
    bool outside = any(lessThan(s, vec3(0.0))) || any(greaterThan(s, vec3(1.0)));
    float d = 0.75 * shadow_params.z;
    float lit = textureLod(shadow_map, vec3(s.xy + vec2(-d, -d), s.z), 0.0)
              + textureLod(shadow_map, vec3(s.xy + vec2(d, -d), s.z), 0.0)
              + textureLod(shadow_map, vec3(s.xy + vec2(-d, d), s.z), 0.0)
              + textureLod(shadow_map, vec3(s.xy + vec2(d, d), s.z), 0.0);
    return outside ? 1.0 : lit * 0.25;
}

void main()
{
    vec4 albedo = colour_texel(tex0, var_texcoord0, texture_srgb.x) * base_color * var_color * tint;
    if (albedo.a < alpha_cutoff)
        discard;
    vec3 n = normalize(var_normal);
    if (!gl_FrontFacing)
        n = -n; // double-sided materials light their back faces too
    // Once, before the light loop, under a condition that is the same for every pixel of the
    // draw: inside the loop, behind N.L > 0, llvmpipe ran the nine lookups for every light.
    int shadowed = shadow_receive > 0.5 && shadow_params.y > 0.0 ? int(shadow_params.x) : -1;
    float in_light = 1.0;
    if (shadowed >= 0)
        in_light = shadow_factor(n, normalize(light_position[shadowed].xyz));
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
    bool standard = material_shading.x < -0.5 ? shading_model > 0.5 : material_shading.x > 0.5;
    float metallic = metallic_roughness.x;
    float roughness = metallic_roughness.y;
    if (standard && metallic_roughness.w > 0.5)
    {
        vec4 mr = texture(metallic_roughness_map, uv(metallic_roughness.z));
        roughness *= mr.g;
        metallic *= mr.b;
    }
    // three.js's floor, so a mirror-smooth surface keeps a visible highlight.
    roughness = clamp(roughness, 0.0525, 1.0);
    float alpha = roughness * roughness;
    vec3 diffuse = standard ? albedo.rgb * (1.0 - metallic) : albedo.rgb;
    vec3 f0 = mix(vec3(0.04), albedo.rgb, metallic);
    // Orthographic projections look along -Z everywhere.
    vec3 v = mtx_proj[3][3] > 0.5 ? vec3(0.0, 0.0, 1.0) : normalize(-var_position);
    float nv = max(dot(n, v), 1e-4);
    vec3 colour = diffuse * ambient.rgb * ao;
    for (int i = 0; i < 8; ++i)
    {
        if (dot(light_color[i].rgb, vec3(1.0)) <= 0.0)
            continue;
        vec3 l = light_position[i].xyz - var_position * light_position[i].w;
        float d2 = dot(l, l);
        // Point lights fall off as 1 / (1 + d^2); directional lights do not fall off.
        float atten = mix(1.0, 1.0 / (1.0 + d2), light_position[i].w);
        l *= inversesqrt(max(d2, 1e-12));
        float nl = max(dot(n, l), 0.0);
        vec3 radiance = light_color[i].rgb * nl * atten;
        if (i == shadowed)
            radiance *= in_light;
        if (!standard)
        {
            colour += diffuse * radiance;
            continue;
        }
        if (nl <= 0.0)
            continue;
        vec3 h = normalize(l + v);
        vec3 f = f0 + (1.0 - f0) * pow(1.0 - max(dot(v, h), 0.0), 5.0);
        float spec = specular_vd(nl, nv, max(dot(n, h), 0.0), alpha);
        // x pi: the light units above (diffuse = colour x N.L x light at intensity 1).
        colour += ((1.0 - f) * diffuse + PI * f * spec) * radiance;
    }
    colour += emissive_factor.rgb * colour_texel(emissive_map, uv(texcoord_sets.z), texture_srgb.y).rgb;
    out_color = vec4(linear_to_srgb(tone_map(colour)), mix(albedo.a, 1.0, alpha_opaque));
}
