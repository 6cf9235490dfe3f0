//! Skeletal animation through the public API against the independent reference poses: a Lua
//! script steps `cursor` (PLAYBACK_NONE) to each reference time and prints the world position
//! of every joint's bone game object (`model.get_go`); Rust compares them with the reference
//! joint matrices within 1e-4 × the model's size (poses and models in `tests/data`).
mod common;
use common::data::{reference_poses, sample_assets};
use common::*;

const SCRIPT: &str = r##"
local ref = require "main.ref"
function init(self)
  self.frame = 0
  model.play_anim("#model", ref.clip, go.PLAYBACK_NONE)
end
function update(self)
  self.frame = self.frame + 1
  local k = self.frame - 1          -- the pose set in frame k is read in frame k + 1
  if k >= 1 and k <= #ref.times then
    for _, name in ipairs(ref.joints) do
      local p = go.get_world_position(model.get_go("#model", name))
      print(string.format("J %d %s %.7f %.7f %.7f", k, name, p.x, p.y, p.z))
    end
  end
  local t = ref.times[self.frame]
  if t then go.set("#model", "cursor", t / ref.duration) else sys.exit(0) end
end
"##;

fn check(reference: &str, asset: &str) {
    let text = std::fs::read_to_string(reference_poses().join(reference)).expect("reference poses");
    let r: serde_json::Value = serde_json::from_str(&text).expect("reference json");
    let anim = &r["animation"];
    let clip = anim["name"].as_str().map(str::to_string).unwrap_or_else(|| format!("animation_{}", anim["index"]));
    let duration = anim["duration"].as_f64().expect("duration");
    let frames = r["frames"].as_array().expect("frames");
    let times: Vec<f64> = frames.iter().map(|f| f["t"].as_f64().expect("t")).collect();
    let joints: Vec<String> = frames[0]["joints"]
        .as_array()
        .expect("joints")
        .iter()
        .map(|j| j["name"].as_str().unwrap_or("").to_string())
        .collect();
    let lua_list = |v: &[String]| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    let ref_lua = format!(
        "return {{ clip = {clip:?}, duration = {duration}, times = {{ {} }}, joints = {{ {} }} }}",
        times.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
        lua_list(&joints)
    );
    let p = project(
        reference,
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "m", "components": [
                    { "id": "model", "type": "model", "mesh": "/models/asset.glb" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", SCRIPT),
            ("/main/ref.lua", &ref_lua),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::copy(sample_assets().join(asset), p.path().join("models/asset.glb")).expect("copy asset");
    let run = run_project(p.path(), 100, &[]);
    assert_eq!(run.status, 0, "{}", run.show());
    // Size: the extent of all reference joint positions.
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for f in frames {
        for j in f["joints"].as_array().expect("joints") {
            for a in 0..3 {
                let v = j["world"][12 + a].as_f64().expect("world");
                lo[a] = lo[a].min(v);
                hi[a] = hi[a].max(v);
            }
        }
    }
    let size = (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt().max(1e-6);
    let mut compared = 0;
    let mut worst: f64 = 0.0;
    for line in run.stdout.lines().filter(|l| l.starts_with("J ")) {
        let f: Vec<&str> = line.split(' ').collect();
        let (k, name) = (f[1].parse::<usize>().expect("k"), f[2]);
        let got: Vec<f64> = f[3..6].iter().map(|x| x.parse().expect("float")).collect();
        let j = frames[k - 1]["joints"].as_array().expect("joints").iter().find(|j| j["name"] == name).expect("joint");
        for a in 0..3 {
            let want = j["world"][12 + a].as_f64().expect("world");
            worst = worst.max((got[a] - want).abs() / size);
        }
        compared += 1;
    }
    assert_eq!(compared, times.len() * joints.len(), "every joint at every time: {}", run.show());
    assert!(worst <= 1e-4, "{reference}: worst joint error {worst:e} × size");
    println!("{reference}: {compared} joint positions, worst error {worst:e} × size {size:.3}");
}

#[test]
fn fox_survey_bones_match_reference() {
    check("fox.survey.json", "Fox.glb");
}

#[test]
fn fox_run_bones_match_reference() {
    check("fox.run.json", "Fox.glb");
}

#[test]
fn rigged_simple_bones_match_reference() {
    check("riggedsimple.0.json", "RiggedSimple.glb");
}
