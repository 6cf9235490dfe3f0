/// The game runs on a thread with a large stack: LuaJIT has no C-stack limit, so a script that
/// recurses through a C function (`s:gsub(".", f)`, `table.sort` with a comparator) nests C
/// frames until the Lua stack limit (65,500 slots) raises "stack overflow". That takes far more C
/// stack than the 8 MB main thread has (the `gsub` case peaks near 100 MB resident); the stack is
/// reserved address space, touched only as deep as a script goes.
const GAME_STACK_BYTES: usize = 256 << 20;

fn main() {
    let game = std::thread::Builder::new().name("sinew".into()).stack_size(GAME_STACK_BYTES).spawn(sinew::app::main);
    let status = match game.map(|t| t.join()) {
        Ok(Ok(status)) => status,
        Ok(Err(_)) => 101,
        Err(e) => {
            eprintln!("cannot start the game thread: {e}");
            1
        }
    };
    std::process::exit(status);
}
