//! A set of small numbers (slot and body indices) as bits in a vector of words: a step or a pass
//! asks "is index i in it" of thousands of indices, which one cache line of words answers where
//! a look-up in each object's own record misses the cache.

/// Puts `i` in the set, growing it as needed.
#[inline]
pub fn insert(words: &mut Vec<u64>, i: usize) {
    let w = i / 64;
    if words.len() <= w {
        words.resize(w + 1, 0);
    }
    words[w] |= 1 << (i % 64);
}

/// Whether `i` is in the set (an index beyond its words is not).
#[inline]
pub fn contains(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Puts `i` in the set if its word exists and says whether it was there already; an index
/// beyond the words is left out (`None`).
#[inline]
pub fn test_and_insert(words: &mut [u64], i: usize) -> Option<bool> {
    let w = words.get_mut(i / 64)?;
    let bit = 1 << (i % 64);
    let was = *w & bit != 0;
    *w |= bit;
    Some(was)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_in_and_out_of_the_set() {
        let mut s = Vec::new();
        assert!(!contains(&s, 0), "an empty set has nothing");
        insert(&mut s, 130);
        assert_eq!(s.len(), 3, "grown to the word of 130");
        assert!(contains(&s, 130));
        assert!(!contains(&s, 129) && !contains(&s, 131) && !contains(&s, 2));
        assert!(!contains(&s, usize::MAX), "far beyond the words");
        insert(&mut s, 0);
        insert(&mut s, 63);
        insert(&mut s, 64);
        assert!(contains(&s, 0) && contains(&s, 63) && contains(&s, 64));
        assert_eq!(test_and_insert(&mut s, 5), Some(false));
        assert_eq!(test_and_insert(&mut s, 5), Some(true));
        assert_eq!(test_and_insert(&mut s, 64 * 3), None, "beyond the words: left out");
        assert_eq!(s.len(), 3);
    }
}
