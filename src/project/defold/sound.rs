//! Defold's `.sound` (SoundDesc: sound, looping, group, gain, pan, speed, loopcount) as the
//! inline fields of a Sinew `sound` component, so one loader checks both forms.
use super::Cx;
use super::node::Node;
use super::read::{Obj, Reader};
use super::text::Message;

const SOUND: &[&str] = &["sound", "looping", "group", "gain", "pan", "speed", "loopcount"];

pub fn sound(cx: &mut Cx, m: &Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a sound", SOUND, &[], p);
    out.str("type", "sound", None);
    if let Some((s, f)) = r.required("sound", p) {
        out.str("sound", s, Some(&f.value_at));
    }
    if let Some((b, f)) = r.bool("looping", p) {
        out.put("looping", Node::Bool(b), Some(&f.value_at));
    }
    if let Some((g, f)) = r.non_empty("group", p) {
        out.str("group", g, Some(&f.value_at));
    }
    for name in ["gain", "pan", "speed"] {
        if let Some((v, f)) = r.number(name, p) {
            out.put(name, Node::Num(v), Some(&f.value_at));
        }
    }
    if let Some((n, f)) = r.number("loopcount", p) {
        // Defold's field is a signed count its engine runs down to 0 and stops at: a negative
        // one (`loopcount: -1`, shipped in games) never gets there and loops until stopped,
        // which Sinew's 0 says. Sinew JSON keeps refusing it (docs/decisions.md).
        let n = if n < 0.0 && n.fract() == 0.0 { 0.0 } else { n };
        out.put("loopcount", Node::Num(n), Some(&f.value_at));
    }
}

#[cfg(test)]
mod tests {
    use crate::project::Resources;
    use crate::project::collection::{load_collection, load_collection_all};
    use crate::project::sound::{SoundSpec, Spatial};
    use crate::project::types::ComponentKind;

    fn sounds(files: &[(&str, &str)], path: &str) -> Vec<SoundSpec> {
        let res =
            Resources::demo().with_overlay(files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect());
        let c = load_collection(&res, path).unwrap_or_else(|e| panic!("{e}"));
        c.objects
            .iter()
            .flat_map(|o| &o.components)
            .filter_map(|c| match &c.kind {
                ComponentKind::Sound(s) => Some(s.clone()),
                _ => None,
            })
            .collect()
    }

    /// A `.wav` or `.ogg` named as the component itself (Defold's `wavc` component type;
    /// ianshk/Hyper-Dot-Defold's sounds) is a sound component with the defaults.
    #[test]
    fn a_sound_file_as_a_component_is_a_sound_with_the_defaults() {
        let data = r#"components { id: \"jump\" component: \"/s/jump.wav\" }\ncomponents { id: \"tune\" component: \"/s/tune.ogg\" }\n"#;
        let collection = format!("name: \"main\"\nembedded_instances {{\n  id: \"a\"\n  data: \"{data}\"\n}}\n");
        let got = sounds(&[("/s/main.collection", &collection)], "/s/main.collection");
        let files: Vec<&str> = got.iter().map(|s| s.sound.as_str()).collect();
        assert_eq!(files, ["/s/jump.wav", "/s/tune.ogg"]);
        for s in &got {
            let (sound, group) = (s.sound.clone(), "master".to_string());
            let defaults = SoundSpec {
                sound,
                gain: 1.0,
                pan: 0.0,
                speed: 1.0,
                looping: false,
                loopcount: 0,
                group,
                spatial: None,
            };
            assert_eq!(s, &defaults, "Defold's defaults besides the file");
        }
    }

    #[test]
    fn a_defold_sound_file_and_an_embedded_one_read_as_the_sinew_json() {
        let defold = sounds(
            &[
                (
                    "/s/step.sound",
                    "sound: \"/s/step.wav\"\nlooping: 1\ngroup: \"sfx\"\ngain: 0.5\npan: -0.25\nspeed: 2.0\nloopcount: 4\n",
                ),
                (
                    "/s/main.collection",
                    "name: \"main\"\nembedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"step\\\" component: \\\"/s/step.sound\\\" }\\nembedded_components { id: \\\"amb\\\" type: \\\"sound\\\" data: \\\"sound: \\\\\\\"/s/wind.ogg\\\\\\\"\\\\n\\\" }\\n\"\n}\n",
                ),
            ],
            "/s/main.collection",
        );
        let json = sounds(
            &[(
                "/s/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "step", "type": "sound", "sound": "/s/step.wav", "looping": true, "group": "sfx",
                      "gain": 0.5, "pan": -0.25, "speed": 2, "loopcount": 4 },
                    { "id": "amb", "type": "sound", "sound": "/s/wind.ogg" } ] } ] }"#,
            )],
            "/s/main.collection",
        );
        assert_eq!(defold, json);
        assert_eq!((json[0].loopcount, json[1].loopcount), (4, 0));
        assert_eq!((json[1].gain, json[1].pan, json[1].speed, json[1].group.as_str()), (1.0, 0.0, 1.0, "master"));
    }

    /// A Defold game ships `loopcount: -1` (Airdady/matatu_defold's suspense music); Defold loads
    /// it and Sinew refused the whole project. In a Defold file it loops until stopped; a
    /// fraction or a count past the limit is still refused there, and -1 in Sinew JSON too (below).
    #[test]
    fn a_defold_sound_with_a_negative_loopcount_loops_until_stopped() {
        let file = |count: &str| {
            let sound = format!("sound: \"/s/m.ogg\"\nlooping: 1\nloopcount: {count}\n");
            let res = Resources::demo().with_overlay(vec![
                ("/s/m.sound".into(), sound.into_bytes()),
                (
                    "/s/main.collection".into(),
                    b"name: \"main\"\nembedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"m\\\" component: \\\"/s/m.sound\\\" }\\n\"\n}\n".to_vec(),
                ),
            ]);
            let mut all = load_collection_all(&res, "/s/main.collection");
            match all.problems.is_empty() {
                true => match all.spec.objects.remove(0).components.remove(0).kind {
                    ComponentKind::Sound(s) => Ok((s.looping, s.loopcount)),
                    _ => Err("not a sound".to_string()),
                },
                false => Err(all.problems.remove(0).to_string()),
            }
        };
        assert_eq!(file("-1"), Ok((true, 0)));
        assert_eq!(file("-7"), Ok((true, 0)));
        assert_eq!(file("3"), Ok((true, 3)));
        let e = file("2000000").expect_err("past the limit");
        assert!(e.starts_with("/s/m.sound:3:") && e.contains("'loopcount' must be a whole number"), "{e}");
    }

    #[test]
    fn sound_fields_are_checked_where_they_are_written() {
        let one = |fields: &str| {
            let text = format!(
                r#"{{ "objects": [ {{ "id": "a", "components": [ {{ "id": "s", "type": "sound", {fields} }} ] }} ] }}"#
            );
            let res = Resources::demo().with_overlay(vec![("/m.collection".into(), text.into_bytes())]);
            let mut all = load_collection_all(&res, "/m.collection");
            match all.problems.is_empty() {
                true => Ok(all.spec.objects.remove(0).components.remove(0).kind),
                false => Err(all.problems.remove(0).to_string()),
            }
        };
        let e = one(r#""sound": "/a.wav", "pan": 2"#).expect_err("pan 2");
        assert!(e.starts_with("/m.collection:1:") && e.contains("'pan' must be a number from -1 to 1"), "{e}");
        assert!(one(r#""sound": "/a.mp3""#).expect_err("mp3").contains("must be a .wav or .ogg file"));
        assert!(one(r#""gain": 1"#).expect_err("no file").contains("needs a 'sound'"));
        let e = one(r#""sound": "/a.wav", "min_distance": 3"#).expect_err("distance without spatial");
        assert!(e.contains("only with \"spatial\": true"), "{e}");
        let e = one(r#""sound": "/a.wav", "spatial": true, "min_distance": 5, "max_distance": 2"#).expect_err("order");
        assert!(e.contains("must be above 'min_distance'"), "{e}");
        for bad in ["2.5", "-1", "1e9"] {
            let e = one(&format!(r#""sound": "/a.wav", "loopcount": {bad}"#)).expect_err("loopcount");
            assert!(e.contains("'loopcount' must be a whole number from 0 to 1000000"), "{bad}: {e}");
        }
        let ok = one(r#""sound": "/a.wav", "spatial": true, "max_distance": 20"#).expect("spatial");
        let ComponentKind::Sound(s) = ok else { panic!("not a sound") };
        assert_eq!(s.spatial, Some(Spatial { min_distance: 1.0, max_distance: 20.0 }));
    }
}
