#version 140

// Depth-only fragment program of the shadow map pass (render::shadow). It is linked with the
// built-in model.vp, so casters are skinned and morphed by the very code the main pass runs:
// a walking character's shadow walks with it. Only depth is written; alpha-masked primitives
// (glTF MASK) drop the texels their cutoff drops, so a leaf's shadow has the leaf's outline.
in vec2 var_texcoord0;

uniform sampler2D tex0;
uniform vec4 base_color;
uniform float alpha_cutoff; // glTF alphaCutoff for MASK, else 0

void main()
{
    if (alpha_cutoff > 0.0 && texture(tex0, var_texcoord0).a * base_color.a < alpha_cutoff)
        discard;
}
