#version 140
// Sinew's stand-in for Defold's built-in model fragment program: the texture times the
// premultiplied tint, lit by one point light (`var_light`, view space) over a 0.2 ambient, opaque.

in highp vec4 var_position;
in mediump vec3 var_normal;
in mediump vec2 var_texcoord0;
in mediump vec4 var_light;

out vec4 out_fragColor;

uniform mediump sampler2D tex0;

uniform fs_uniforms
{
    mediump vec4 tint;
};

void main()
{
    vec4 tint_pm = vec4(tint.xyz * tint.w, tint.w);
    vec4 color = texture(tex0, var_texcoord0.xy) * tint_pm;
    vec3 ambient_light = vec3(0.2);
    vec3 to_light = normalize(var_light.xyz - var_position.xyz);
    vec3 diff_light = max(dot(var_normal, to_light), 0.0) + ambient_light;
    diff_light = clamp(diff_light, 0.0, 1.0);
    out_fragColor = vec4(color.rgb * diff_light, 1.0);
}
