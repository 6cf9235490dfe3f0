//! The input focus stack: game-object slots, most recent acquirer last (the top).

#[derive(Debug, Clone, Default)]
pub struct FocusStack {
    slots: Vec<u32>,
}

impl FocusStack {
    /// Pushes `slot` on top; an object already on the stack keeps its place (no duplicate).
    pub fn acquire(&mut self, slot: u32) {
        if !self.slots.contains(&slot) {
            self.slots.push(slot);
        }
    }

    pub fn release(&mut self, slot: u32) {
        self.slots.retain(|&s| s != slot);
    }

    /// Top first.
    pub fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().rev().copied()
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acquire_release_order() {
        let mut f = FocusStack::default();
        f.acquire(1);
        f.acquire(2);
        f.acquire(1);
        f.acquire(3);
        assert_eq!(f.top_down().collect::<Vec<_>>(), [3, 2, 1]);
        f.release(2);
        assert_eq!(f.top_down().collect::<Vec<_>>(), [3, 1]);
    }
}
