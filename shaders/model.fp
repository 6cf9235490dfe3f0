#version 140

// Built-in model fragment program, glTF's colour conventions: base colour and emissive textures
// hold sRGB-encoded colours, factors, vertex colours, tint, lights and ambient are linear;
// lighting is linear; the result is exposed, tone mapped and sRGB-encoded for the 8-bit frame
// buffer. Occlusion darkens the ambient term only (glTF: it applies to indirect light).
//
// Two lighting models (SINEW_STANDARD: the project's `shading`, or the material's
// `material_shading` constant):
// 0 Lambert: colour x (ambient + sum of N.L x light).
// 1 glTF 2.0 metallic-roughness, the specification's Appendix B: Lambert diffuse of the
//   non-metal part, GGX distribution, height-correlated Smith visibility, Schlick Fresnel mixing
//   diffuse and specular. Light units: a light of intensity 1 gives a white surface facing it the
//   diffuse value 1 (the BRDF is multiplied by pi), i.e. three.js's lights at intensity pi,
//   ambient included (three.js since r155 divides diffuse by pi).
//
// The renderer compiles one program per combination of the SINEW_* features below that a draw
// needs (render::variant), so each pixel runs only the code its draw uses: llvmpipe executes
// what lies behind a uniform branch, whichever way it goes.
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
uniform float exposure;
uniform mat4 mtx_proj;
uniform vec4 ambient;
// View space. w = 0: directional, xyz points towards the light; w = 1: point light position.
// The first SINEW_LIGHTS slots are in use.
uniform vec4 light_position[8];
uniform vec4 light_color[8]; // rgb = colour x intensity, w = a point light's range (0: 1 / (1 + d^2))
uniform vec4 light_spot[8]; // a spot light's cone (render::program): (0, 0, 0, 1) for other lights
// Shadows of the first directional light (project setting `shadows`, see render::shadow).
uniform sampler2DShadow shadow_map; // depth, compared in hardware, linear filtering
uniform mat4 mtx_shadow;    // view space -> map: xy texture coordinates, z depth
uniform vec4 shadow_params; // y: a texel in world units, z: in uv (the slot is SINEW_SHADOW_SLOT)

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
#if SINEW_TONE_MAPPING == 2
    return agx(c);
#elif SINEW_TONE_MAPPING == 1
    return aces(c);
#else
    return c;
#endif
}

// Appendix B's specular lobe without Fresnel: V x D, height-correlated Smith-GGX visibility and
// the GGX distribution, for alpha = roughness^2.
float specular_vd(float nl, float nv, float nh, float alpha)
{
    float a2 = alpha * alpha;
    float vis = 0.5 / max(nl * sqrt(a2 + (1.0 - a2) * nv * nv) + nv * sqrt(a2 + (1.0 - a2) * nl * nl), 1e-6);
    float d = nh * nh * (a2 - 1.0) + 1.0;
    return vis * a2 / (PI * d * d);
}

// DFG_LUT begin: written by scripts/gen-dfg-lut.py, do not edit
const vec2 DFG_LUT[256] = vec2[256](
    vec2(0.14727, 0.85216), vec2(0.16842, 0.78766), vec2(0.25098, 0.63893), vec2(0.38109, 0.51972), vec2(0.50945, 0.41562), vec2(0.61604, 0.32631), vec2(0.69834, 0.25398), vec2(0.75911, 0.19751), vec2(0.80241, 0.15431), vec2(0.83204, 0.12165), vec2(0.85109, 0.09702), vec2(0.86198, 0.07846), vec2(0.86655, 0.06441), vec2(0.86621, 0.05371), vec2(0.86196, 0.04545), vec2(0.85464, 0.03903),
    vec2(0.38885, 0.61115), vec2(0.39415, 0.60045), vec2(0.41487, 0.54600), vec2(0.46114, 0.44821), vec2(0.53451, 0.35254), vec2(0.61560, 0.27391), vec2(0.68548, 0.21142), vec2(0.73633, 0.16263), vec2(0.76867, 0.12539), vec2(0.78711, 0.09729), vec2(0.79808, 0.07620), vec2(0.79984, 0.06037), vec2(0.79554, 0.04844), vec2(0.78568, 0.03936), vec2(0.77171, 0.03240), vec2(0.75426, 0.02698),
    vec2(0.57243, 0.42758), vec2(0.57433, 0.42405), vec2(0.58113, 0.40370), vec2(0.59448, 0.35463), vec2(0.62055, 0.28811), vec2(0.65972, 0.22485), vec2(0.69853, 0.17266), vec2(0.72999, 0.13185), vec2(0.75478, 0.10084), vec2(0.76861, 0.07745), vec2(0.77178, 0.05994), vec2(0.76550, 0.04686), vec2(0.75200, 0.03700), vec2(0.73266, 0.02953), vec2(0.70903, 0.02384), vec2(0.68367, 0.01943),
    vec2(0.70899, 0.29102), vec2(0.70954, 0.28964), vec2(0.71107, 0.28145), vec2(0.71204, 0.25851), vec2(0.71438, 0.22046), vec2(0.72075, 0.17688), vec2(0.73046, 0.13703), vec2(0.74475, 0.10481), vec2(0.75600, 0.07988), vec2(0.75930, 0.06100), vec2(0.75323, 0.04684), vec2(0.73869, 0.03624), vec2(0.71767, 0.02826), vec2(0.69164, 0.02227), vec2(0.66104, 0.01769), vec2(0.62847, 0.01420),
    vec2(0.80820, 0.19181), vec2(0.80812, 0.19131), vec2(0.80734, 0.18817), vec2(0.80334, 0.17807), vec2(0.79530, 0.15868), vec2(0.78108, 0.13222), vec2(0.77218, 0.10483), vec2(0.76858, 0.08112), vec2(0.76433, 0.06199), vec2(0.75568, 0.04728), vec2(0.73994, 0.03615), vec2(0.71883, 0.02776), vec2(0.69064, 0.02149), vec2(0.65813, 0.01674), vec2(0.62226, 0.01316), vec2(0.58374, 0.01042),
    vec2(0.87830, 0.12171), vec2(0.87813, 0.12170), vec2(0.87622, 0.12070), vec2(0.87056, 0.11693), vec2(0.85766, 0.10804), vec2(0.83616, 0.09378), vec2(0.81415, 0.07688), vec2(0.79532, 0.06069), vec2(0.77686, 0.04689), vec2(0.75597, 0.03591), vec2(0.73267, 0.02746), vec2(0.70295, 0.02102), vec2(0.66902, 0.01617), vec2(0.63038, 0.01252), vec2(0.58935, 0.00974), vec2(0.54627, 0.00763),
    vec2(0.92621, 0.07379), vec2(0.92597, 0.07390), vec2(0.92398, 0.07398), vec2(0.91802, 0.07311), vec2(0.90278, 0.06984), vec2(0.87905, 0.06309), vec2(0.85119, 0.05379), vec2(0.82132, 0.04370), vec2(0.79091, 0.03440), vec2(0.76115, 0.02662), vec2(0.72770, 0.02044), vec2(0.69167, 0.01566), vec2(0.65077, 0.01201), vec2(0.60721, 0.00925), vec2(0.56113, 0.00716), vec2(0.51408, 0.00557),
    vec2(0.95769, 0.04232), vec2(0.95744, 0.04244), vec2(0.95570, 0.04289), vec2(0.94991, 0.04318), vec2(0.93602, 0.04267), vec2(0.91229, 0.04025), vec2(0.88159, 0.03579), vec2(0.84519, 0.03013), vec2(0.80653, 0.02433), vec2(0.76700, 0.01914), vec2(0.72645, 0.01486), vec2(0.68243, 0.01142), vec2(0.63626, 0.00878), vec2(0.58713, 0.00674), vec2(0.53662, 0.00520), vec2(0.48606, 0.00402),
    vec2(0.97737, 0.02263), vec2(0.97714, 0.02274), vec2(0.97582, 0.02325), vec2(0.97077, 0.02395), vec2(0.95845, 0.02449), vec2(0.93598, 0.02412), vec2(0.90522, 0.02252), vec2(0.86500, 0.01977), vec2(0.82163, 0.01651), vec2(0.77470, 0.01329), vec2(0.72652, 0.01046), vec2(0.67653, 0.00813), vec2(0.62391, 0.00628), vec2(0.56973, 0.00483), vec2(0.51520, 0.00371), vec2(0.46141, 0.00286),
    vec2(0.98894, 0.01107), vec2(0.98873, 0.01114), vec2(0.98763, 0.01153), vec2(0.98230, 0.01221), vec2(0.97243, 0.01300), vec2(0.95299, 0.01352), vec2(0.92314, 0.01328), vec2(0.88261, 0.01226), vec2(0.83492, 0.01066), vec2(0.78343, 0.00885), vec2(0.72836, 0.00712), vec2(0.67180, 0.00561), vec2(0.61356, 0.00436), vec2(0.55480, 0.00337), vec2(0.49631, 0.00260), vec2(0.43950, 0.00200),
    vec2(0.99520, 0.00480), vec2(0.99502, 0.00485), vec2(0.99415, 0.00511), vec2(0.98965, 0.00560), vec2(0.98143, 0.00634), vec2(0.96399, 0.00698), vec2(0.93601, 0.00730), vec2(0.89676, 0.00712), vec2(0.84698, 0.00649), vec2(0.79134, 0.00560), vec2(0.73155, 0.00463), vec2(0.66909, 0.00372), vec2(0.60542, 0.00293), vec2(0.54165, 0.00228), vec2(0.47936, 0.00177), vec2(0.41976, 0.00137),
    vec2(0.99824, 0.00176), vec2(0.99821, 0.00180), vec2(0.99748, 0.00194), vec2(0.99376, 0.00225), vec2(0.98635, 0.00273), vec2(0.97147, 0.00325), vec2(0.94536, 0.00367), vec2(0.90755, 0.00382), vec2(0.85824, 0.00368), vec2(0.79956, 0.00332), vec2(0.73515, 0.00284), vec2(0.66744, 0.00234), vec2(0.59846, 0.00188), vec2(0.53011, 0.00148), vec2(0.46417, 0.00116), vec2(0.40198, 0.00090),
    vec2(0.99950, 0.00050), vec2(0.99949, 0.00052), vec2(0.99892, 0.00059), vec2(0.99588, 0.00075), vec2(0.98909, 0.00101), vec2(0.97651, 0.00135), vec2(0.95270, 0.00165), vec2(0.91622, 0.00186), vec2(0.86731, 0.00191), vec2(0.80749, 0.00182), vec2(0.73936, 0.00162), vec2(0.66695, 0.00138), vec2(0.59305, 0.00114), vec2(0.52020, 0.00091), vec2(0.45055, 0.00072), vec2(0.38586, 0.00057),
    vec2(0.99991, 0.00009), vec2(0.99991, 0.00010), vec2(0.99967, 0.00013), vec2(0.99686, 0.00019), vec2(0.99089, 0.00031), vec2(0.97897, 0.00047), vec2(0.95753, 0.00065), vec2(0.92345, 0.00079), vec2(0.87540, 0.00088), vec2(0.81484, 0.00089), vec2(0.74412, 0.00083), vec2(0.66746, 0.00074), vec2(0.58860, 0.00063), vec2(0.51142, 0.00052), vec2(0.43825, 0.00042), vec2(0.37117, 0.00033),
    vec2(0.99999, 0.00001), vec2(1.00000, 0.00001), vec2(0.99955, 0.00002), vec2(0.99736, 0.00004), vec2(0.99205, 0.00008), vec2(0.98127, 0.00014), vec2(0.96125, 0.00021), vec2(0.92912, 0.00028), vec2(0.88265, 0.00033), vec2(0.82166, 0.00036), vec2(0.74901, 0.00036), vec2(0.66858, 0.00034), vec2(0.58535, 0.00030), vec2(0.50375, 0.00026), vec2(0.42709, 0.00021), vec2(0.35764, 0.00017),
    vec2(1.00000, 0.00000), vec2(1.00001, 0.00000), vec2(0.99949, 0.00000), vec2(0.99758, 0.00001), vec2(0.99295, 0.00002), vec2(0.98273, 0.00003), vec2(0.96434, 0.00005), vec2(0.93395, 0.00007), vec2(0.88895, 0.00009), vec2(0.82831, 0.00010), vec2(0.75408, 0.00011), vec2(0.67040, 0.00011), vec2(0.58295, 0.00011), vec2(0.49706, 0.00010), vec2(0.41695, 0.00008), vec2(0.34531, 0.00007));
// DFG_LUT end

// The split-sum (scale, bias) of the GGX lobe at (roughness, N.V), bilinear between the
// table's texel centres as a 16x16 linear-filtered texture would give it.
vec2 dfg(float roughness, float nv)
{
    vec2 p = clamp(vec2(roughness, nv) * 16.0 - 0.5, 0.0, 15.0);
    vec2 c = min(floor(p), vec2(14.0));
    vec2 f = p - c;
    int k = int(c.y) * 16 + int(c.x);
    vec2 a = mix(DFG_LUT[k], DFG_LUT[k + 1], f.x);
    vec2 b = mix(DFG_LUT[k + 16], DFG_LUT[k + 17], f.x);
    return mix(a, b, f.y);
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
#if SINEW_ALPHA_MASK
    // Only masked materials discard: a program that may discard loses llvmpipe's early depth
    // test, and every hidden pixel of every opaque draw would be shaded.
    if (albedo.a < alpha_cutoff)
        discard;
#endif
    vec3 n = normalize(var_normal);
    if (!gl_FrontFacing)
        n = -n; // double-sided materials light their back faces too
#if SINEW_STANDARD
    // How fast the interpolated normal turns across a pixel: added to the roughness (below),
    // so a highlight is never thinner than the facets it lies on (three.js's
    // geometryRoughness). Taken here, in uniform control flow.
    vec3 dn = max(abs(dFdx(n)), abs(dFdy(n)));
    float geometry_roughness = max(max(dn.x, dn.y), dn.z);
#endif
#if SINEW_SHADOW_SLOT >= 0
    // Before the normal map bends n: the offset follows the geometry.
    float in_light = shadow_factor(n, normalize(light_position[SINEW_SHADOW_SLOT].xyz));
#endif
#if SINEW_NORMAL_MAP
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
#endif
    float ao = 1.0;
#if SINEW_OCCLUSION_MAP
    ao = 1.0 + occlusion_strength * (texture(occlusion_map, uv(texcoord_sets.w)).r - 1.0);
#endif
#if SINEW_STANDARD
    float metallic = metallic_roughness.x;
    float roughness = metallic_roughness.y;
#if SINEW_METALLIC_ROUGHNESS_MAP
    vec4 mr = texture(metallic_roughness_map, uv(metallic_roughness.z));
    roughness *= mr.g;
    metallic *= mr.b;
#endif
    // A floor (Filament's and three.js's 0.045) so a mirror-smooth surface keeps a visible
    // highlight, plus the geometry's own roughness.
    roughness = min(max(roughness, 0.045) + geometry_roughness, 1.0);
    float alpha = roughness * roughness;
    vec3 diffuse = albedo.rgb * (1.0 - metallic);
    vec3 f0 = mix(vec3(0.04), albedo.rgb, metallic);
    // Orthographic projections look along -Z everywhere.
    vec3 v = mtx_proj[3][3] > 0.5 ? vec3(0.0, 0.0, 1.0) : normalize(-var_position);
    float nv = max(dot(n, v), 1e-4);
    vec3 colour = diffuse * ambient.rgb * ao;
    // Energy the specular lobe takes is not there for the diffuse layer: the ambient light's
    // diffuse share is what a dielectric's (F0 0.04) single and multiple scattering leave
    // (Fdez-Aguera 2019); direct specular gets back what single scattering loses (Turquin
    // 2019), tinted by F0. three.js r187 does both.
    vec2 fab = dfg(roughness, nv);
    float ess = fab.x + fab.y;
    float fss_ess = 0.04 * fab.x + fab.y;
    float favg = 0.04 + 0.96 / 21.0;
    float fms_ems = fss_ess * favg / (1.0 - (1.0 - ess) * favg) * (1.0 - ess);
    colour *= 1.0 - fss_ess - fms_ems;
    vec3 multi_scatter = 1.0 + f0 * (1.0 / max(ess, 1e-4) - 1.0);
#else
    vec3 diffuse = albedo.rgb;
    vec3 colour = diffuse * ambient.rgb * ao;
#endif
    // The slots in use come first, SINEW_LIGHTS of them this frame: a loop of known length,
    // unrolled, with nothing to test per slot.
    for (int i = 0; i < SINEW_LIGHTS; ++i)
    {
#if SINEW_POINT_LIGHTS
        vec3 l = light_position[i].xyz - var_position * light_position[i].w;
        float d2 = dot(l, l);
        // Point lights fall off as 1 / (1 + d^2), or with a range as Defold's (1 - d / range)^2;
        // directional lights do not fall off.
        float range = light_color[i].w;
        float reach = range > 0.0 ? clamp(1.0 - sqrt(d2) / range, 0.0, 1.0) : 1.0;
        float atten = mix(1.0, range > 0.0 ? reach * reach : 1.0 / (1.0 + d2), light_position[i].w);
        l *= inversesqrt(max(d2, 1e-12));
        float spot = clamp(dot(-l, light_spot[i].xyz) + light_spot[i].w, 0.0, 1.0);
        atten *= spot * spot;
#else
        // Directional lights only this frame: xyz is already the unit vector towards the light.
        vec3 l = light_position[i].xyz;
        float atten = 1.0;
#endif
        float nl = max(dot(n, l), 0.0);
        vec3 radiance = light_color[i].rgb * nl * atten;
#if SINEW_SHADOW_SLOT >= 0
        if (i == SINEW_SHADOW_SLOT)
            radiance *= in_light;
#endif
#if SINEW_STANDARD
        vec3 h = normalize(l + v);
        float fc = pow(1.0 - max(dot(v, h), 0.0), 5.0);
        vec3 f = f0 + (1.0 - f0) * fc;
        float spec = specular_vd(nl, nv, max(dot(n, h), 0.0), alpha);
        // The diffuse layer loses what the dielectric interface (F0 0.04) reflects, as glTF's
        // fresnel_mix and three.js weigh it; x pi: the light units above (diffuse = colour x
        // N.L x light at intensity 1). Where N.L is 0, radiance is 0 and so is the sum.
        colour += ((1.0 - (0.04 + 0.96 * fc)) * diffuse + PI * f * spec * multi_scatter) * radiance;
#else
        colour += diffuse * radiance;
#endif
    }
#if SINEW_EMISSIVE_MAP
    colour += emissive_factor.rgb * colour_texel(emissive_map, uv(texcoord_sets.z), texture_srgb.y).rgb;
#else
    colour += emissive_factor.rgb;
#endif
    out_color = vec4(linear_to_srgb(tone_map(colour)), mix(albedo.a, 1.0, alpha_opaque));
}
