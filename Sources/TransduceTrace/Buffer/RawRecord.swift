import CTraceRing

/// The fixed-size binary form of one event in a ring-buffer slot: `CLTTNG_PAYLOAD_WORDS` words,
/// no references.
///
/// Layout (word: content), as `clttng_format.h` defines it for the C crash dump too: 0: kind |
/// code << 8 | code2 << 16 | step << 32; 1: time; 2: runtime; 3: dispatch; 4: cycle; 5: task;
/// 6: otherTask; 7: nanos; 8: count | thread << 32; 9: label; 10: label2 (labels as
/// ``LabelTable`` references). The accessors below use tuple elements for speed; a test checks
/// that each writes the word `clttng_format.h` names and that `Words` is `wordCount` words.
package struct RawRecord: Sendable {
    package typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    /// Payload words of a slot (the C slot protocol's `CLTTNG_PAYLOAD_WORDS`).
    package static let wordCount = Int(CLTTNG_PAYLOAD_WORDS)

    package var words: Words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    package init() {}

    package var kindCode: UInt8 {
        get { UInt8(truncatingIfNeeded: words.0) }
        set { words.0 = (words.0 & ~0xFF) | UInt64(newValue) }
    }
    package var code: UInt8 {
        get { UInt8(truncatingIfNeeded: words.0 >> 8) }
        set { words.0 = (words.0 & ~0xFF00) | UInt64(newValue) << 8 }
    }
    package var code2: UInt8 {
        get { UInt8(truncatingIfNeeded: words.0 >> 16) }
        set { words.0 = (words.0 & ~0xFF_0000) | UInt64(newValue) << 16 }
    }
    package var step: UInt32 {
        get { UInt32(truncatingIfNeeded: words.0 >> 32) }
        set { words.0 = (words.0 & 0xFFFF_FFFF) | UInt64(newValue) << 32 }
    }
    package var time: UInt64 {
        get { words.1 }
        set { words.1 = newValue }
    }
    package var runtime: UInt64 {
        get { words.2 }
        set { words.2 = newValue }
    }
    package var dispatch: UInt64 {
        get { words.3 }
        set { words.3 = newValue }
    }
    package var cycle: UInt64 {
        get { words.4 }
        set { words.4 = newValue }
    }
    package var task: UInt64 {
        get { words.5 }
        set { words.5 = newValue }
    }
    package var otherTask: UInt64 {
        get { words.6 }
        set { words.6 = newValue }
    }
    package var nanos: UInt64 {
        get { words.7 }
        set { words.7 = newValue }
    }
    package var count: UInt32 {
        get { UInt32(truncatingIfNeeded: words.8) }
        set { words.8 = (words.8 & ~0xFFFF_FFFF) | UInt64(newValue) }
    }
    package var thread: UInt32 {
        get { UInt32(truncatingIfNeeded: words.8 >> 32) }
        set { words.8 = (words.8 & 0xFFFF_FFFF) | UInt64(newValue) << 32 }
    }
    package var label: UInt64 {
        get { words.9 }
        set { words.9 = newValue }
    }
    package var label2: UInt64 {
        get { words.10 }
        set { words.10 = newValue }
    }
}
