//! Whole files, as `kd.loads` gets them: any bytes give an error or a
//! value, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = plait_persist::loads(data);
});
