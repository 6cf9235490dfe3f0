fn main() {
    std::process::exit(sinew::app::main());
}
