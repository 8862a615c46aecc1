//! (being written: see issue 3)
