// Sinew's stand-in for Defold's built-in lighting library (`#include
// "/builtins/materials/lighting.glsl"`): the same functions over the scene's light components,
// read from Sinew's light uniforms (view space already; docs/materials.md). The including
// shader declares `var_view` (the view matrix) before the include, as with Defold's file.
#ifndef DEFOLD_LIGHTING_GLSL
#define DEFOLD_LIGHTING_GLSL

#define LIGHT_DIRECTIONAL 0
#define LIGHT_POINT       1
#define LIGHT_SPOT        2

#ifndef MAX_LIGHT_COUNT
#define MAX_LIGHT_COUNT 8
#endif

// Sinew's light slots: xyz view-space direction towards a directional light (w 0) or position
// of a point light (w 1); rgb colour x intensity, w a point light's range (0: 1 / (1 + d^2)).
uniform vec4 light_position[8];
uniform vec4 light_color[8];
// A spot light's cone: clamp(dot(-l, xyz) + w, 0, 1) squared, l towards the light; (0, 0, 0, 1)
// for other lights.
uniform vec4 light_spot[8];
uniform vec4 ambient;

vec3 world_to_view_point(vec3 p)
{
    return (var_view * vec4(p, 1.0)).xyz;
}

vec3 world_to_view_dir(vec3 d)
{
    return normalize((var_view * vec4(d, 0.0)).xyz);
}

vec3 ambient_light()
{
    return ambient.rgb;
}

vec3 diffuse_lambert(int index, vec3 normal, vec3 view_position)
{
    vec4 p = light_position[index];
    vec4 c = light_color[index];
    if (p.w == 0.0)
    {
        return c.rgb * max(dot(normal, normalize(p.xyz)), 0.0);
    }
    vec3 to_light = p.xyz - view_position;
    float dist = length(to_light);
    float atten;
    if (c.w > 0.0)
    {
        atten = clamp(1.0 - dist / c.w, 0.0, 1.0);
        atten *= atten;
    }
    else
    {
        atten = 1.0 / (1.0 + dist * dist);
    }
    vec3 l = to_light / max(dist, 1e-6);
    float spot = clamp(dot(-l, light_spot[index].xyz) + light_spot[index].w, 0.0, 1.0);
    return c.rgb * max(dot(normal, l), 0.0) * atten * spot * spot;
}

vec3 diffuse_lambert(vec3 view_normal, vec3 view_position)
{
    vec3 total_light = vec3(0.0);
    for (int i = 0; i < MAX_LIGHT_COUNT && i < 8; ++i)
    {
        if (light_position[i].w < 0.0)
            break; // the first free slot: no light here or after
        total_light += diffuse_lambert(i, view_normal, view_position);
    }
    return total_light;
}

#endif
