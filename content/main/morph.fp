#version 140

// Companion of morph_contract.vp: tint x a fixed view-space light, so normals show.

in highp vec3 var_position;
in mediump vec3 var_normal;
in mediump vec2 var_texcoord0;

out vec4 out_fragColor;

uniform fs_uniforms
{
    mediump vec4 tint;
};

void main()
{
    vec3 l = normalize(vec3(0.4, 0.8, 0.6));
    float d = max(dot(normalize(var_normal), l), 0.0);
    out_fragColor = vec4(tint.rgb * (0.25 + 0.75 * d), 1.0);
}
