//! Payloads past the header and checksum (which would reject nearly every
//! mutation): the first byte is the content tag, the rest the payload.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((&tag, payload)) = data.split_first() {
        let _ = plait_persist::loads_payload(plait_persist::VERSION, tag % 4, payload);
    }
});
