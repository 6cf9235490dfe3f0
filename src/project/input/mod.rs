//! Input as the project describes it: Defold's input names and `.input_binding` files. Raw
//! events and action state live in `game::input`; this module only knows names and files.
pub mod binding;
pub mod names;

pub use binding::{Binding, BindingRow, DEFAULT_BINDING, load_binding, parse_binding};
pub use names::{Device, Input};
