use super::parse::parse;
use super::weights::{VertexWeights, WeightRig};
use super::*;

const HEAD: &str = "Read body.obj\nBoneAxis A 0 0 0\nBoneAxis B 0 1 0\nBoneAxis C 0 2 0\n";

fn bon_err(body: &str) -> String {
    parse("/r/rig.bon", &format!("{HEAD}{body}")).unwrap_err().to_string()
}

#[test]
fn parses_the_spec_example() {
    let text = "Read vanille/vanille_nude.obj        # the OBJ to rig
BoneAxis Bassin 0.00 0.09 0.00
BoneAxis Torse 0.00 0.30 0.00
BoneAxis Tete 0.00 0.55 0.00
BoneAxis Crane 0.00 0.70 0.00
BoneAxis EpauleG 0.17 0.63 -0.03
BoneAxis CoudeG 0.35 0.44 -0.03
; a comment
bone Bassin Scene Bassin Torse       # Bone NAME PARENT PIVOT END
BoneInfluence 0.25 0.2 0.21
BoneRmax 180.0 180.0 180.0
BoneRmin -180.0 -180.0 -180.0

Bone Torse Parent Torse Tete
Bone Tete Parent Tete Crane
BONE BrasG Torse EpauleG CoudeG
BoneInfluence 0.065 0.2 0.8
BoneRmax 130.0 85.0 55.0
BoneRmin\t-80.0 -60.0 -100.0
";
    let f = parse("/m/vanille.bon", text).unwrap();
    assert_eq!(f.read, "/m/vanille/vanille_nude.obj");
    assert_eq!(f.points.len(), 6);
    let names: Vec<&str> = f.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Bassin", "Torse", "Tete", "BrasG"]);
    let parents: Vec<Option<usize>> = f.bones.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(1)]);
    assert_eq!(f.bones[0].radius, Some(0.25));
    assert_eq!((f.bones[0].min, f.bones[0].max), (0.2, 0.21));
    assert_eq!(f.bones[1].radius, None, "default: no radius");
    assert_eq!((f.bones[1].min, f.bones[1].max), (0.0, 1.0));
    assert_eq!(f.bones[1].rmin, [-180.0; 3]);
    assert_eq!(f.bones[3].rmax, [130.0, 85.0, 55.0]);
    assert_eq!(f.bones[3].rmin, [-80.0, -60.0, -100.0]);
    assert_eq!(f.bones[3].line, 16);
    // An absolute path stays in the project.
    let abs = parse("/m/x.bon", "Read /objs/a.obj\nBoneAxis A 0 0 0\nBone b Scene A A\n").unwrap();
    assert_eq!(abs.read, "/objs/a.obj");
}

#[test]
fn error_unknown_keyword() {
    assert_eq!(
        bon_err("Bones x Scene A B\n"),
        "/r/rig.bon:5: unknown keyword 'Bones' (expected Read, BoneAxis, Bone, BoneInfluence, BoneRmax or BoneRmin)"
    );
}

#[test]
fn error_wrong_number_of_fields() {
    assert_eq!(bon_err("Bone x Scene A\n"), "/r/rig.bon:5: Bone NAME PARENT PIVOT END takes 4 field(s), found 3");
    assert_eq!(bon_err("BoneAxis D 0 0\n"), "/r/rig.bon:5: BoneAxis NAME X Y Z takes 4 field(s), found 3");
    assert_eq!(
        bon_err("Bone x Scene A B\nBoneInfluence 1 0\n"),
        "/r/rig.bon:6: BoneInfluence RADIUS MIN MAX takes 3 field(s), found 2"
    );
    assert_eq!(
        bon_err("Bone x Scene A B\nBoneRmax 1 2 3 4\n"),
        "/r/rig.bon:6: BoneRmax X Y Z takes 3 field(s), found 4"
    );
    assert!(parse("/r.bon", "Read a.obj b.obj\n").unwrap_err().to_string().starts_with("/r.bon:1: Read PATH takes 1"));
}

#[test]
fn error_number_does_not_parse() {
    assert_eq!(bon_err("BoneAxis D 0 x 0\n"), "/r/rig.bon:5: 'x' is not a number");
    assert_eq!(bon_err("BoneAxis D 0 inf 0\n"), "/r/rig.bon:5: 'inf' is not a number");
    assert_eq!(bon_err("Bone x Scene A B\nBoneInfluence 0,5 0 1\n"), "/r/rig.bon:6: '0,5' is not a number");
}

#[test]
fn error_unknown_point() {
    assert_eq!(bon_err("Bone x Scene A Z\n"), "/r/rig.bon:5: unknown point 'Z'");
}

#[test]
fn error_unknown_parent() {
    assert_eq!(bon_err("Bone x Nobody A B\n"), "/r/rig.bon:5: unknown parent bone 'Nobody'");
    assert_eq!(bon_err("Bone x Parent A B\n"), "/r/rig.bon:5: parent 'Parent' but there is no previous bone");
    // A later bone is not a parent yet.
    assert_eq!(bon_err("Bone x y A B\nBone y Scene A B\n"), "/r/rig.bon:5: unknown parent bone 'y'");
}

#[test]
fn error_duplicate_name() {
    assert_eq!(bon_err("BoneAxis A 1 1 1\n"), "/r/rig.bon:5: duplicate point 'A'");
    assert_eq!(bon_err("Bone x Scene A B\nBone x Scene B C\n"), "/r/rig.bon:6: duplicate bone 'x'");
    // A bone and a point may share a name.
    assert!(parse("/r.bon", &format!("{HEAD}Bone A Scene A B\n")).is_ok());
}

#[test]
fn error_setting_before_any_bone() {
    assert_eq!(bon_err("BoneInfluence 1 0 1\n"), "/r/rig.bon:5: 'BoneInfluence' before any 'Bone'");
    assert_eq!(bon_err("BoneRmin 0 0 0\n"), "/r/rig.bon:5: 'BoneRmin' before any 'Bone'");
    assert_eq!(bon_err("bonermax 0 0 0\n"), "/r/rig.bon:5: 'bonermax' before any 'Bone'");
}

#[test]
fn error_values_out_of_range() {
    let b = "Bone x Scene A B\n";
    assert_eq!(bon_err(&format!("{b}BoneInfluence 0 0 1\n")), "/r/rig.bon:6: radius 0 must be greater than 0");
    assert_eq!(bon_err(&format!("{b}BoneInfluence -1 0 1\n")), "/r/rig.bon:6: radius -1 must be greater than 0");
    let order = "must satisfy 0 <= min <= max <= 1";
    assert_eq!(bon_err(&format!("{b}BoneInfluence 1 0.6 0.4\n")), format!("/r/rig.bon:6: min 0.6 and max 0.4 {order}"));
    assert_eq!(
        bon_err(&format!("{b}BoneInfluence 1 -0.1 0.4\n")),
        format!("/r/rig.bon:6: min -0.1 and max 0.4 {order}")
    );
    assert_eq!(bon_err(&format!("{b}BoneInfluence 1 0 1.5\n")), format!("/r/rig.bon:6: min 0 and max 1.5 {order}"));
    assert_eq!(
        bon_err(&format!("{b}BoneRmax 10 -190 10\n")),
        "/r/rig.bon:6: bone 'x': Rmin -180 is above Rmax -190 around Y"
    );
    assert_eq!(
        bon_err(&format!("{b}BoneRmax 10 10 10\nBoneRmin 0 0 20\n")),
        "/r/rig.bon:7: bone 'x': Rmin 20 is above Rmax 10 around Z"
    );
}

#[test]
fn error_missing_or_second_read() {
    let e = parse("/r.bon", "BoneAxis A 0 0 0\nBone x Scene A A\n").unwrap_err();
    assert_eq!(e.to_string(), "/r.bon:2: no 'Read' line naming the OBJ to rig");
    assert_eq!(bon_err("Read other.obj\n"), "/r/rig.bon:5: a second 'Read' (the first is on line 1)");
    let late = parse("/r.bon", "BoneAxis A 0 0 0\nBone x Scene A A\nRead a.obj\n").unwrap_err();
    assert_eq!(late.to_string(), "/r.bon:3: 'Read' must come before any 'Bone'");
    let out = parse("/r/x.bon", "Read ../../a.obj\n").unwrap_err();
    assert_eq!(out.to_string(), "/r/x.bon:1: Read '../../a.obj' escapes the project root");
    let none = parse("/r.bon", "Read a.obj\nBoneAxis A 0 0 0\n").unwrap_err();
    assert_eq!(none.to_string(), "/r.bon:2: no 'Bone' line: a rig needs at least one bone");
}

// ---------------------------------------------------------------------------------------------
// Weights against a second, straightforward implementation of rigs.md 2.3.

/// Section 2.3 read literally: every bone's (t, d) in a list, then the rules in order.
fn reference(f: &parse::BonFile, v: [f64; 3]) -> Vec<(usize, f64)> {
    let pt = |i: usize| f.points[i].pos;
    let measure = |b: &parse::BoneDef| {
        let (a, e) = (pt(b.pivot), pt(b.end));
        let s = [e[0] - a[0], e[1] - a[1], e[2] - a[2]];
        let ss = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
        let va = [v[0] - a[0], v[1] - a[1], v[2] - a[2]];
        let t =
            if ss.sqrt() == 0.0 { 0.0 } else { ((va[0] * s[0] + va[1] * s[1] + va[2] * s[2]) / ss).clamp(0.0, 1.0) };
        let q = [a[0] + t * s[0], a[1] + t * s[1], a[2] + t * s[2]];
        let d = ((v[0] - q[0]).powi(2) + (v[1] - q[1]).powi(2) + (v[2] - q[2]).powi(2)).sqrt();
        (t, d)
    };
    let all: Vec<(f64, f64)> = f.bones.iter().map(measure).collect();
    let captured: Vec<usize> =
        (0..f.bones.len()).filter(|&b| f.bones[b].radius.is_some_and(|r| all[b].1 <= r)).collect();
    let pool: Vec<usize> = if captured.is_empty() { (0..f.bones.len()).collect() } else { captured };
    // min_by keeps the first of equal elements? No: Iterator::min_by returns the *last*; fold.
    let mut p = pool[0];
    for &b in &pool[1..] {
        if all[b].1 < all[p].1 {
            p = b;
        }
    }
    let t = all[p].0;
    let bone = &f.bones[p];
    let kids: Vec<usize> =
        (0..f.bones.len()).filter(|&c| f.bones[c].parent == Some(p) && f.bones[c].pivot == bone.end).collect();
    let mut out = if t > bone.max && !kids.is_empty() {
        let mut c = kids[0];
        for &k in &kids[1..] {
            if all[k].1 < all[c].1 {
                c = k;
            }
        }
        let s = (t - bone.max) / (1.0 - bone.max);
        vec![(p, 1.0 - s / 2.0), (c, s / 2.0)]
    } else if t < bone.min && bone.parent.is_some() {
        let s = (bone.min - t) / bone.min;
        vec![(p, 1.0 - s / 2.0), (bone.parent.unwrap_or(0), s / 2.0)]
    } else {
        vec![(p, 1.0)]
    };
    out.retain(|x| x.1 != 0.0);
    out.sort_by_key(|x| x.0);
    out
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A coordinate on a coarse grid, so ties and zero-length bones happen.
    fn grid(&mut self) -> f64 {
        (self.next() * 8.0).floor() * 0.25 - 1.0
    }
}

/// A random rig: points on a grid (so bones share points, some have PIVOT = END), random
/// parents, radii (some absent), MIN/MAX including the 0 and 1 edges.
fn random_rig(seed: u64) -> String {
    let mut r = Lcg(seed);
    let mut s = String::from("Read m.obj\n");
    let np = 6 + (r.next() * 6.0) as usize;
    for i in 0..np {
        s += &format!("BoneAxis P{i} {} {} {}\n", r.grid(), r.grid(), r.grid());
    }
    let nb = 1 + (r.next() * 12.0) as usize;
    let mut ends = Vec::new();
    for b in 0..nb {
        let parent_index = if b == 0 || r.next() < 0.2 { None } else { Some((r.next() * b as f64) as usize) };
        let parent = parent_index.map_or("Scene".to_string(), |p| format!("B{p}"));
        let pivot = match parent_index {
            Some(p) if r.next() < 0.6 => ends[p],
            _ => (r.next() * np as f64) as usize,
        };
        // Often start where an earlier bone ends (soft joints need PIVOT = parent's END).
        let end = if r.next() < 0.1 { pivot } else { (r.next() * np as f64) as usize };
        ends.push(end);
        s += &format!("Bone B{b} {parent} P{pivot} P{end}\n");
        let radius = [0.1, 0.25, 0.5, 1.0][(r.next() * 4.0) as usize];
        let edge = |x: f64| {
            if x < 0.25 {
                0.0
            } else if x > 0.75 {
                1.0
            } else {
                (x * 20.0).round() / 20.0
            }
        };
        let (a, c) = (edge(r.next()), edge(r.next()));
        let (min, max) = if a <= c { (a, c) } else { (c, a) };
        if r.next() < 0.8 {
            s += &format!("BoneInfluence {radius} {min} {max}\n");
        }
    }
    s
}

#[test]
fn weights_match_the_reference_on_random_rigs() {
    let mut checked = [0usize; 5]; // captured, uncaptured, soft-child, soft-parent, two-bone ties
    for seed in 1..400u64 {
        let text = random_rig(seed);
        let f = parse("/m.bon", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let rig = WeightRig::new(&f);
        let mut r = Lcg(seed * 7919);
        let positions: Vec<[f32; 3]> = (0..200)
            .map(|k| {
                if k % 3 == 0 {
                    // On the grid: exactly on points, ties between bones meeting there.
                    [r.grid() as f32, r.grid() as f32, r.grid() as f32]
                } else {
                    [(r.next() * 2.5 - 1.25) as f32, (r.next() * 2.5 - 1.25) as f32, (r.next() * 2.5 - 1.25) as f32]
                }
            })
            .collect();
        let mut out = vec![VertexWeights::default(); positions.len()];
        assert!(rig.weights(&positions, &mut out));
        for (p, w) in positions.iter().zip(&out) {
            let v = [p[0] as f64, p[1] as f64, p[2] as f64];
            let want = reference(&f, v);
            let got: Vec<(usize, f64)> = w.pairs().map(|(b, x)| (b as usize, x)).collect();
            assert_eq!(got.len(), want.len(), "seed {seed} vertex {p:?}: {got:?} vs {want:?}\n{text}");
            for (g, e) in got.iter().zip(&want) {
                assert_eq!(g.0, e.0, "seed {seed} vertex {p:?}: {got:?} vs {want:?}\n{text}");
                assert!((g.1 - e.1).abs() < 1e-12, "seed {seed} vertex {p:?}: {got:?} vs {want:?}");
            }
            let sum: f64 = got.iter().map(|x| x.1).sum();
            assert!((sum - 1.0).abs() < 1e-12);
            checked[if w.captured { 0 } else { 1 }] += 1;
            if got.len() == 2 {
                let child = f.bones[w.bones[1] as usize].parent == Some(w.bones[0] as usize);
                checked[if child { 2 } else { 3 }] += 1;
            }
        }
    }
    // The generated rigs exercised every rule (not just the easy case).
    assert!(checked.iter().take(4).all(|&n| n > 50), "{checked:?}");
}

#[test]
fn weights_hand_checked_cases() {
    // A straight arm along +x: upper (0..1), fore (1..2), soft (0.4, 0.6) at the elbow.
    let text = "Read m.obj
BoneAxis S 0 0 0
BoneAxis E 1 0 0
BoneAxis W 2 0 0
BoneAxis Z 5 5 5
Bone Upper Scene S E
BoneInfluence 0.5 0 0.6
Bone Fore Parent E W
BoneInfluence 0.5 0.4 1
Bone Dot Scene Z Z
";
    let f = parse("/m.bon", text).unwrap();
    let rig = WeightRig::new(&f);
    let w = |x: f64, y: f64| rig.vertex([x, y, 0.0]);
    // At the elbow: upper's t = 1, s = 1 -> half and half (upper wins the d = 0 tie: earlier).
    let at = w(1.0, 0.0);
    assert_eq!((at.bones, at.weights), ([0, 1], [0.5, 0.5]));
    // Upper at t = 0.8: s = (0.8 - 0.6) / 0.4 = 0.5 -> 0.75 / 0.25.
    let a = w(0.8, 0.1);
    assert_eq!(a.bones, [0, 1]);
    assert!((a.weights[0] - 0.75).abs() < 1e-12 && (a.weights[1] - 0.25).abs() < 1e-12);
    // Fore at t = 0.2: s = (0.4 - 0.2) / 0.4 = 0.5 -> 0.75 fore, 0.25 upper (its parent).
    let b = w(1.2, 0.1);
    assert_eq!(b.bones, [1, 0]);
    assert!((b.weights[0] - 0.75).abs() < 1e-12);
    let pairs: Vec<(u16, f64)> = b.pairs().collect();
    assert_eq!(pairs[0].0, 0, "pairs are sorted by bone index");
    // Middle of the forearm: rigid.
    assert_eq!(w(1.6, 0.0).weights, [1.0, 0.0]);
    // Outside every radius: nearest bone, uncaptured. The zero-length bone `Dot` (no radius)
    // still gets vertices it is nearest to.
    let far = rig.vertex([5.0, 5.0, 4.0]);
    assert_eq!((far.bones[0], far.captured), (2, false));
    let out = w(0.5, 3.0);
    assert_eq!((out.bones[0], out.captured), (0, false));
}

#[test]
fn sample_figure_rigs_and_skins() {
    let obj_text = sample::figure_obj(6, 8);
    let obj = crate::project::obj::parse("/f/figure.obj", &obj_text, None).unwrap();
    let file = parse("/f/figure.bon", &sample::figure_bon("figure.obj")).unwrap();
    assert_eq!(file.bones.len(), sample::BONE_COUNT);
    let b = rig(file, obj);
    assert_eq!(b.weights.len(), sample::BONE_COUNT * 6 * 8);
    assert_eq!(b.uncaptured_total(), 0, "radii are 1.5 x the tubes");
    assert_eq!(b.captured.iter().sum::<usize>(), b.weights.len());
    let d = &b.data;
    assert_eq!(d.skins[0].joints.len(), 21);
    assert_eq!(d.nodes[0].name, "Bassin");
    assert_eq!(d.nodes[1].translation, [0.0, 0.25, 0.0], "Torse - Bassin");
    assert_eq!(d.skins[0].inverse_bind[1][13], -1.15);
    let ids: Vec<&str> = d.meshes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["body", "head"]);
    for m in &d.meshes {
        assert_eq!(m.skin, Some(0));
        assert!(m.node >= 21);
        for p in &m.primitives {
            assert_eq!(p.joints.len(), p.positions.len());
            assert!(p.weights.iter().all(|w| (w.iter().sum::<f32>() - 1.0).abs() < 1e-6));
        }
    }
    let json = weights_json(&b);
    assert_eq!(json["bones"][3], "Tete");
    assert_eq!(json["vertices"].as_array().unwrap().len(), b.weights.len());
}

/// The demo's mannequin: the figure's skeleton, every vertex inside a bone's radius, a waist
/// soft on both sides (pelvis MAX and torso MIN), mirrored elbow limits, its materials defined.
#[test]
fn sample_mannequin_rigs_with_a_soft_waist_and_limited_elbows() {
    let files = sample::mannequin_files();
    let text = |n: &str| files.iter().find(|f| f.0 == n).map(|f| f.1.clone()).unwrap();
    let obj = crate::project::obj::parse("/m/mannequin.obj", &text("mannequin.obj"), None).unwrap();
    let file = parse("/m/mannequin.bon", &text("mannequin.bon")).unwrap();
    assert_eq!(file.read, "/m/mannequin.obj");
    assert_eq!(file.bones.len(), sample::BONE_COUNT);
    let bone = |n: &str| file.bones.iter().find(|b| b.name == n).unwrap().clone();
    let (pelvis, torso) = (bone("Bassin"), bone("Torse"));
    assert!(pelvis.max < 1.0 && torso.min > 0.0 && torso.min < torso.max, "{pelvis:?} {torso:?}");
    assert_eq!((bone("AvBrasG").rmin[2], bone("AvBrasG").rmax[2]), (-5.0, 150.0));
    assert_eq!((bone("AvBrasD").rmin[2], bone("AvBrasD").rmax[2]), (-150.0, 5.0));
    // Every material the OBJ uses is in the MTL (parsed without a project, so not read here).
    let obj_text = text("mannequin.obj");
    let used: std::collections::BTreeSet<&str> = obj_text.lines().filter_map(|l| l.strip_prefix("usemtl ")).collect();
    let mtl = text("mannequin.mtl");
    let defined: std::collections::BTreeSet<&str> = mtl.lines().filter_map(|l| l.strip_prefix("newmtl ")).collect();
    assert_eq!(used, defined);
    assert_eq!(defined.len(), 4, "skin, shirt, shorts, shoe");
    let b = rig(file, obj);
    assert_eq!(b.uncaptured_total(), 0, "every vertex is inside a bone's radius");
    // Vertices shared by pelvis (0) and torso (1): the soft waist.
    let shared =
        b.weights.iter().filter(|w| w.bones[..2].contains(&0) && w.bones[..2].contains(&1) && w.weights[1] > 0.0);
    assert!(shared.count() > 100);
    let ids: Vec<&str> = b.data.meshes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["body", "head"]);
}

/// Issue 32: 300,000 `BoneAxis` lines. Each one and each `Bone` looked through every point
/// before it (over a minute); now by name. Not timed: at this size the old scan is obviously slow.
#[test]
fn many_points_are_found_by_name() {
    const POINTS: usize = 300_000;
    let mut text = String::from("Read body.obj\n");
    for k in 0..POINTS {
        text.push_str(&format!("BoneAxis p{k} {k} 0 0\n"));
    }
    text.push_str(&format!("Bone first Scene p0 p{}\nBone second first p{} p1\n", POINTS - 1, POINTS / 2));
    let f = parse("/r/rig.bon", &text).unwrap();
    assert_eq!(f.points.len(), POINTS);
    assert_eq!((f.bones[0].pivot, f.bones[0].end), (0, POINTS - 1));
    assert_eq!((f.bones[1].parent, f.bones[1].pivot, f.bones[1].end), (Some(0), POINTS / 2, 1));
    let dup = parse("/r/rig.bon", &format!("{text}BoneAxis p{} 0 0 0\n", POINTS - 1)).unwrap_err();
    assert_eq!(dup.line, Some(POINTS + 4));
    assert!(dup.message.contains("duplicate point"), "{dup}");
}

/// rigs.md 2.3: a vertex exactly as far from two bones goes to the earlier one. `0.1` lies halfway
/// between bones at x = 0 and x = 0.2 in the file's decimals; as f32 it is 0.100000001, nearer
/// the second bone, which won before the distances were taken from the f64 coordinates.
#[test]
fn a_tie_written_in_the_file_goes_to_the_earlier_bone() {
    let bon = "Read m.obj\nBoneAxis a0 0 0 0\nBoneAxis a1 0 1 0\nBoneAxis b0 0.2 0 0\nBoneAxis b1 0.2 1 0\n\
               Bone A Scene a0 a1\nBone B Scene b0 b1\n";
    let file = parse("/r/rig.bon", bon).unwrap();
    let obj = crate::project::obj::parse("/r/m.obj", "v 0.1 0.5 0\nv 0.15 0.5 0\n", None).unwrap();
    let b = rig(file, obj);
    assert_eq!(b.weights[0].bones[0], 0, "the tie goes to A, the earlier bone: {:?}", b.weights[0]);
    assert_eq!(b.weights[1].bones[0], 1, "nearer B: {:?}", b.weights[1]);
}
