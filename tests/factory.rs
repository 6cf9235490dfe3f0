//! `factory` and `collectionfactory` (gameplay.md section 1): the Lua API project, `sinew check`
//! on broken prototypes, and memory over spawn/delete churn.
mod common;
use common::*;
use sinew::project::gltf::samples;

#[test]
fn lua_api_factory() {
    let p = committed("api_factory");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/wiggler.glb"), samples::wiggler()).expect("wiggler");
    let r = run_project(p.path(), 20, &[]);
    assert_lua_passed(&r, "api_factory");
}
