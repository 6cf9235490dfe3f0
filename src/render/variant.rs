//! Program variants: one linked program per combination of features a draw needs, chosen by
//! `#define`s, as three.js compiles its materials. On llvmpipe (every machine without a GPU,
//! CI included) a uniform branch costs as much as the code behind it, taken or not: the demo's
//! model pass took 33 ms a frame at 960x540 with every feature behind uniforms and 16-18 ms
//! with only the ones it uses compiled in (docs/benchmarks.md).
//!
//! A program takes part by naming a feature's define anywhere in its sources (the built-in
//! `model.fp` names them all); the renderer then compiles it once per combination of the
//! features it names that some draw needs, on first use. A program that names none is compiled
//! once, without these defines, as before.

/// A feature a program can be compiled with: its define and the values it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Feature {
    /// Light slots in use this frame (0..=8): `light_position[0..SINEW_LIGHTS]`.
    Lights,
    /// 1 when any of them is a point or spot light (0: all directional, nothing falls off).
    PointLights,
    /// The slot of the light whose shadow map this draw reads, -1 for none (shadows off, no
    /// directional light, or the item's `receive_shadows` off).
    ShadowSlot,
    /// 1: glTF metallic-roughness shading; 0: Lambert.
    Standard,
    /// 1 when the primitive has that glTF texture.
    NormalMap,
    OcclusionMap,
    MetallicRoughnessMap,
    /// 1 when the primitive or the item has an emissive texture (0: the factor alone).
    EmissiveMap,
    /// 1 for glTF MASK primitives, the only ones that discard.
    AlphaMask,
    /// The project's `tone_mapping`: 0 none, 1 ACES, 2 AgX.
    ToneMapping,
    /// 1 when the primitive has morph targets (the vertex program adds their deltas).
    Morph,
    /// 1 when the primitive is skinned (the vertex program reads `pose_matrix_cache`).
    Skinned,
}

impl Feature {
    pub(crate) const ALL: [Feature; 12] = [
        Feature::Lights,
        Feature::PointLights,
        Feature::ShadowSlot,
        Feature::Standard,
        Feature::NormalMap,
        Feature::OcclusionMap,
        Feature::MetallicRoughnessMap,
        Feature::EmissiveMap,
        Feature::AlphaMask,
        Feature::ToneMapping,
        Feature::Morph,
        Feature::Skinned,
    ];

    pub(crate) fn define(self) -> &'static str {
        match self {
            Feature::Lights => "SINEW_LIGHTS",
            Feature::PointLights => "SINEW_POINT_LIGHTS",
            Feature::ShadowSlot => "SINEW_SHADOW_SLOT",
            Feature::Standard => "SINEW_STANDARD",
            Feature::NormalMap => "SINEW_NORMAL_MAP",
            Feature::OcclusionMap => "SINEW_OCCLUSION_MAP",
            Feature::MetallicRoughnessMap => "SINEW_METALLIC_ROUGHNESS_MAP",
            Feature::EmissiveMap => "SINEW_EMISSIVE_MAP",
            Feature::AlphaMask => "SINEW_ALPHA_MASK",
            Feature::ToneMapping => "SINEW_TONE_MAPPING",
            Feature::Morph => "SINEW_MORPH",
            Feature::Skinned => "SINEW_SKINNED",
        }
    }

    /// (smallest value, bits of the key it takes).
    const fn range(self) -> (i32, u32) {
        match self {
            Feature::Lights => (0, 4),
            Feature::ShadowSlot => (-1, 4),
            Feature::ToneMapping => (0, 2),
            _ => (0, 1),
        }
    }

    const fn shift(self) -> u32 {
        let (mut shift, mut i) = (0, 0);
        while i < Feature::ALL.len() && Feature::ALL[i] as u32 != self as u32 {
            shift += Feature::ALL[i].range().1;
            i += 1;
        }
        shift
    }

    const fn mask(self) -> u32 {
        ((1 << self.range().1) - 1) << self.shift()
    }
}

/// A combination of feature values, packed: each feature's value less its smallest value, so
/// the zero key is every feature at its smallest (no lights, no shadow, Lambert, no maps, not
/// morphed, not skinned).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Variant(u32);

impl Variant {
    /// The variant a material is compiled with when it loads: the zero one with morphing and
    /// skinning, so what the renderer asks of the material's program before choosing a variant
    /// (how many morph weights and bones it holds) has its answer.
    pub(crate) const LOADED: Variant = Variant(Feature::Morph.mask() | Feature::Skinned.mask());

    /// This variant with `f` set to `value`, clamped to what the feature takes.
    pub(crate) fn with(self, f: Feature, value: i32) -> Variant {
        let (min, bits) = f.range();
        let v = (value.max(min) - min).min((1 << bits) - 1) as u32;
        Variant(self.0 & !f.mask() | v << f.shift())
    }

    pub(crate) fn get(self, f: Feature) -> i32 {
        ((self.0 & f.mask()) >> f.shift()) as i32 + f.range().0
    }

    /// The lines to put after `#version` (see `shader::preprocess_with`).
    pub(crate) fn defines(self) -> String {
        Feature::ALL.iter().map(|&f| format!("#define {} {}\n", f.define(), self.get(f))).collect()
    }
}

/// The features a program names, found once in its sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Uses(u32);

impl Uses {
    /// None when the sources name no feature: the program is not compiled in variants.
    pub(crate) fn of(sources: &[&str]) -> Option<Uses> {
        let mut mask = 0;
        for f in Feature::ALL {
            if sources.iter().any(|s| names(s, f.define())) {
                mask |= f.mask();
            }
        }
        (mask != 0).then_some(Uses(mask))
    }

    /// `v` without the features the program does not name: draws that differ only in those
    /// share a program.
    pub(crate) fn keep(self, v: Variant) -> Variant {
        Variant(v.0 & self.0)
    }

    /// `v`'s values of the features the program names, for messages: `SINEW_LIGHTS 2, ...`.
    pub(crate) fn describe(self, v: Variant) -> String {
        let named = Feature::ALL.into_iter().filter(|&f| self.has(f));
        named.map(|f| format!("{} {}", f.define(), v.get(f))).collect::<Vec<_>>().join(", ")
    }

    pub(crate) fn has(self, f: Feature) -> bool {
        self.0 & f.mask() != 0
    }
}

/// Whether `source` has `name` as a whole identifier (so `SINEW_LIGHTS` is not found in
/// `SINEW_LIGHTS_MAX`).
fn names(source: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    source.match_indices(name).any(|(at, _)| {
        let before = source[..at].chars().next_back();
        let after = source[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_keeps_its_value_and_leaves_the_others_alone() {
        let mut v = Variant::default();
        assert_eq!(v.get(Feature::ShadowSlot), -1, "the zero key has no shadow");
        let values = [8, 1, 7, 1, 1, 0, 1, 1, 0, 2, 1, 1];
        for (f, value) in Feature::ALL.into_iter().zip(values) {
            v = v.with(f, value);
        }
        for (f, value) in Feature::ALL.into_iter().zip(values) {
            assert_eq!(v.get(f), value, "{f:?}");
        }
        assert_eq!(v.with(Feature::Lights, 3).get(Feature::ToneMapping), 2);
        let bits: u32 = Feature::ALL.iter().map(|f| f.range().1).sum();
        assert!(bits <= 32, "the key holds every feature");
    }

    #[test]
    fn out_of_range_values_are_clamped() {
        let v = Variant::default();
        assert_eq!(v.with(Feature::Lights, 99).get(Feature::Lights), 15);
        assert_eq!(v.with(Feature::ShadowSlot, -5).get(Feature::ShadowSlot), -1);
        assert_eq!(v.with(Feature::Standard, 4).get(Feature::Standard), 1);
        assert_eq!(v.with(Feature::Lights, -3).get(Feature::Lights), 0);
    }

    #[test]
    fn defines_name_every_feature_with_its_value() {
        let d = Variant::default().with(Feature::Lights, 3).defines();
        assert!(d.contains("#define SINEW_LIGHTS 3\n"), "{d}");
        assert!(d.contains("#define SINEW_SHADOW_SLOT -1\n"), "{d}");
        assert_eq!(d.lines().count(), Feature::ALL.len());
    }

    #[test]
    fn a_program_takes_part_only_through_the_features_it_names() {
        assert_eq!(Uses::of(&["void main() {}", "uniform vec4 tint;"]), None);
        let uses = Uses::of(&["#if SINEW_STANDARD\n#endif", "for (int i = 0; i < SINEW_LIGHTS; ++i)"]).unwrap();
        assert!(uses.has(Feature::Standard) && uses.has(Feature::Lights));
        assert!(!uses.has(Feature::PointLights) && !uses.has(Feature::ToneMapping));
        let v = Variant::default().with(Feature::Lights, 2).with(Feature::ToneMapping, 1);
        assert_eq!(uses.keep(v), Variant::default().with(Feature::Lights, 2));
        assert_eq!(uses.describe(v), "SINEW_LIGHTS 2, SINEW_STANDARD 0");
        assert_eq!(Uses::of(&["#define SINEW_LIGHTS_MAX 4"]), None, "a longer identifier is not the feature");
        assert_eq!(Uses::of(&["MY_SINEW_LIGHTS"]), None);
    }

    #[test]
    fn the_builtin_model_program_names_every_feature() {
        let uses = Uses::of(&[include_str!("../../shaders/model.vp"), include_str!("../../shaders/model.fp")]).unwrap();
        for f in Feature::ALL {
            assert!(uses.has(f), "model.fp does not name {}", f.define());
        }
    }
}
