//! What several benchmarks build the same way: a world of game objects that each run one script.
#![allow(dead_code)]
use sinew::game::{World, spawn::spawn_collection};
use sinew::project::{CollectionSpec, ComponentKind, ComponentSpec, ObjectSpec, Resources};
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;

/// `n` objects `/o0` … each with a script component running `source`, spawned and `init`ed.
/// `setup` runs on the host before spawning (to set globals the script's top level reads).
pub fn scripted_world(
    tag: &str,
    n: usize,
    source: &str,
    setup: impl FnOnce(&ScriptHost),
) -> (ScriptHost, Rc<RefCell<World>>) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("main")).expect("temp dir");
    std::fs::write(dir.join("main/s.script"), source).expect("write script");
    let res = Resources::open_dir(&dir).expect("resources");
    let objects = (0..n)
        .map(|i| ObjectSpec {
            path: format!("/o{i}"),
            collection_prefix: "/".into(),
            parent: None,
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            components: vec![ComponentSpec {
                id: "script".into(),
                kind: ComponentKind::Script { script: "/main/s.script".into(), properties: vec![] },
            }],
        })
        .collect();
    let spec = CollectionSpec { name: "main".into(), objects };
    let world = Rc::new(RefCell::new(World::new("main")));
    let mut host = ScriptHost::new(world.clone(), res.clone()).expect("lua");
    setup(&host);
    spawn_collection(&world, &res, &spec, &mut host).expect("spawn");
    sinew::game::ScriptHooks::init_new(&mut host);
    (host, world)
}
