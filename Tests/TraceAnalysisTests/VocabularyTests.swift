import CTraceRing
import Foundation
import Testing
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// The trace vocabulary is defined once, in `Vocabulary/events.json`, from which the C provider
/// (`transduce_tp.h`, `clttng_events.c`, `clttng_kinds.h`, `clttng_codes.c`) and the Swift tables
/// (`RuntimeEvent.Kind`, `TraceSchema.fields(of:)`, `TraceNames+Codes.swift`, `LTTngSink`) are
/// generated (VocabularyGeneratorTests fails when one is stale). The runtime's code enums stay
/// hand-written API: these tests tie what the compiled C and Swift say to each other, so a code
/// added to an enum but not to the definition fails here.
@Suite struct VocabularyTests {
    static let root = URL(fileURLWithPath: Repository.root)

    static func source(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The events and fields of transduce_tp.h: (LTTng event name, [(macro, field name)]), an
    /// instance of an event class with its class's fields.
    static func providerEvents() throws -> [(name: String, fields: [(macro: String, name: String)])] {
        let text = try source("Sources/CLTTng/include/transduce_tp.h")
        var events: [(String, [(String, String)])] = []
        var classes: [String: [(String, String)]] = [:]
        let event = try Regex(#"^\(transduce,\s*(\w+),"#)
        let eventClass = try Regex(#"^_CLASS\(transduce,\s*(\w+),"#)
        let instance = try Regex(#"^_INSTANCE\(transduce,\s*(\w+),\s*transduce,\s*(\w+),"#)
        let fieldPattern = try Regex(#"lttng_ust_field_(\w+)\(([^)]*)\)"#)
        func fields(_ block: Substring) -> [(String, String)] {
            block.matches(of: fieldPattern).map { match in
                let macro = String(match.output[1].substring ?? "")
                let arguments = (match.output[2].substring ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                // integer(type, name, value); string(name, value); sequence_text(type, name, …)
                return (macro, macro == "string" ? arguments[0] : arguments[1])
            }
        }
        for block in text.split(separator: "LTTNG_UST_TRACEPOINT_EVENT").dropFirst() {
            if let match = block.firstMatch(of: eventClass), let name = match.output[1].substring {
                classes[String(name)] = fields(block)
            } else if let match = block.firstMatch(of: instance), let layout = match.output[1].substring,
                let name = match.output[2].substring
            {
                events.append((String(name), classes[String(layout)] ?? []))
            } else if let match = block.firstMatch(of: event), let name = match.output[1].substring {
                events.append((String(name), fields(block)))
            }
        }
        return events
    }

    @Test func theProviderDefinesEveryKindWithTheSchemasFields() throws {
        let events = try Self.providerEvents()
        #expect(events.map(\.name) == TraceEvent.Kind.allCases.map(\.lttngName))
        for (kind, event) in zip(TraceEvent.Kind.allCases, events) {
            var fields = event.fields
            #expect(fields.first?.name == "runtime", "\(event.name) starts with its runtime")
            fields.removeFirst()
            // runtime_start's record tag is the recorder's, not the schema's (transduce_tp.h).
            if kind == .runtimeStart { fields.removeAll { $0.name == "record_tag" } }
            let schema = TraceSchema.fields(of: kind)
            #expect(fields.map(\.name) == schema.map(\.name), "fields of \(event.name)")
            for (field, expected) in zip(fields, schema) {
                let text = field.macro == "string" || field.macro == "sequence_text"
                #expect(text == expected.slot.isText, "\(event.name).\(field.name) is \(field.macro)")
                // Codes travel as their names (C's tables), labels as length-prefixed text.
                let code = expected.slot == .code || expected.slot == .code2
                if text { #expect((field.macro == "string") == code, "\(event.name).\(field.name)") }
            }
        }
    }

    @Test func everyKindHasAWrapperAndAKindConstantInC() throws {
        let header = try Self.source("Sources/CLTTng/include/clttng_events.h")
        let format = try Self.source("Sources/CTraceRing/include/clttng_kinds.h")
        let constants = format.matches(of: try Regex(#"CLTTNG_KIND_([A-Z_]+)"#)).compactMap { $0.output[1].substring }
            .map(String.init).filter { $0 != "COUNT" }
        var seen: [String] = []
        for name in constants where !seen.contains(name) { seen.append(name) }
        #expect(seen == TraceEvent.Kind.allCases.map { $0.lttngName.uppercased() })
        #expect(Int(CLTTNG_KIND_COUNT) == TraceEvent.Kind.allCases.count)
        for kind in TraceEvent.Kind.allCases {
            #expect(header.contains("void clttng_\(kind.lttngName)(uint64_t runtime"), "clttng_\(kind.lttngName)")
        }
    }

    @Test func cAndSwiftNameEveryCodeAlike() {
        for kind in TraceEvent.Kind.allCases {
            let k = kind.rawValue
            let swift = TraceNames.codes(of: kind)
            #expect(Int(clttng_code_count(k)) == swift.count, "\(kind)")
            let c = (0..<clttng_code_count(k)).map { String(cString: clttng_code_name(k, $0)) }
            #expect(c == swift, "\(kind)")
            #expect(clttng_code_name(k, 200).map { String(cString: $0) } == (swift.isEmpty ? nil : "unknown"))
            let second = (0..<clttng_code2_count(k)).map { String(cString: clttng_code2_name(k, $0)) }
            #expect(second == TraceNames.secondCodes(of: kind), "\(kind)")
            #expect(second == (kind == .dispatchRejected ? TraceNames.rejections : []), "\(kind)")
        }
    }

    /// The code tables come from the runtime's enums; these are the names traces already hold, so a
    /// renamed case (which would silently change every reader's input) fails here.
    @Test func theNamesTracesHoldDoNotChange() {
        // New kinds come after these (a kind's index is its code).
        #expect(
            TraceNames.kinds.prefix(15).joined(separator: " ")
                == "runtimeStart runtimeStop dispatch dispatchRejected cycleEnter transduce effect cycleLeave taskSpawn taskJoin taskCancel taskSettle requestResume eventDropped traceContext"
        )
        #expect(TraceNames.lttngKinds[4] == "cycle_enter" && TraceNames.lttngKinds[3] == "dispatch_rejected")
        #expect(TraceNames.styles == ["post", "send", "request", "uniqueRequest", "initial", "taskRequest", "taskResponse"])
        #expect(TraceNames.resumeOutcomes == ["response", "nil", "error"])
        #expect(TraceNames.lifecycles == ["active", "cancelled", "deallocated", "failed"])
    }

    /// Views and passes hold hundreds of thousands of events: a field added or moved so that
    /// padding grows shows here (the small fields come first, then the 64-bit ones, the texts).
    @Test func aTraceEventTakesNoPadding() {
        // Kind and two codes (4 with padding), four 32-bit fields (to 24 with padding), seven
        // 64-bit ones, three texts.
        #expect(MemoryLayout<TraceEvent>.stride == 24 + 7 * 8 + 3 * MemoryLayout<String>.stride)
    }

    @Test func rawRecordIsTheCSlotPayload() {
        #expect(MemoryLayout<RawRecord.Words>.size == RawRecord.wordCount * 8)
        #expect(Int(CLTTNG_SLOT_WORDS) == RawRecord.wordCount + 2)
        var r = RawRecord()
        r.kindCode = 0x11
        r.code = 0x22
        r.code2 = 0x33
        r.step = 0x4444_4444
        r.time = 1
        r.runtime = 2
        r.dispatch = 3
        r.cycle = 4
        r.task = 5
        r.otherTask = 6
        r.nanos = 7
        r.count = 0x8888_8888
        r.thread = 0x9999_9999
        r.label = 10
        r.label2 = 11
        let words = withUnsafeBytes(of: r.words) { Array($0.bindMemory(to: UInt64.self)) }
        #expect(words[Int(CLTTNG_WORD_HEAD)] == 0x4444_4444_0033_2211)
        #expect(words[Int(CLTTNG_WORD_TIME)] == 1)
        #expect(words[Int(CLTTNG_WORD_RUNTIME)] == 2)
        #expect(words[Int(CLTTNG_WORD_DISPATCH)] == 3)
        #expect(words[Int(CLTTNG_WORD_CYCLE)] == 4)
        #expect(words[Int(CLTTNG_WORD_TASK)] == 5)
        #expect(words[Int(CLTTNG_WORD_OTHER_TASK)] == 6)
        #expect(words[Int(CLTTNG_WORD_NANOS)] == 7)
        #expect(words[Int(CLTTNG_WORD_COUNT_THREAD)] == 0x9999_9999_8888_8888)
        #expect(words[Int(CLTTNG_WORD_LABEL)] == 10)
        #expect(words[Int(CLTTNG_WORD_LABEL2)] == 11)
    }

    /// The crash dump (C) and the file writer (Swift) write the same bytes for the same event.
    @Test func theCrashDumpAndTheWriterEncodeRecordsAlike() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed ^ (seed >> 29)
        }
        for _ in 0..<200 {
            let kind = TraceEvent.Kind.allCases[Int(next() % UInt64(TraceEvent.Kind.allCases.count))]
            var e = TraceEvent(kind: kind, time: next(), thread: UInt32(truncatingIfNeeded: next()), runtime: next())
            e.dispatch = next()
            e.cycle = next()
            e.task = next()
            e.otherTask = next()
            e.nanos = next()
            e.step = UInt32(truncatingIfNeeded: next())
            e.count = UInt32(truncatingIfNeeded: next())
            e.code = UInt8(truncatingIfNeeded: next())
            e.code2 = UInt8(truncatingIfNeeded: next())
            let labels = (UInt32(truncatingIfNeeded: next()), UInt32(truncatingIfNeeded: next()))
            var swift = [UInt8](repeating: 0xAA, count: TraceRecordLayout.size)
            swift.withUnsafeMutableBytes {
                TraceRecordLayout.encode(e, label: labels.0, label2: labels.1, into: $0, at: 0)
            }
            var r = RawRecord()
            r.kindCode = kind.rawValue
            r.code = e.code
            r.code2 = e.code2
            r.step = e.step
            r.time = e.time
            r.runtime = e.runtime
            r.dispatch = e.dispatch
            r.cycle = e.cycle
            r.task = e.task
            r.otherTask = e.otherTask
            r.nanos = e.nanos
            r.count = e.count
            r.thread = e.thread
            var c = [UInt8](repeating: 0x55, count: TraceRecordLayout.size)
            withUnsafeBytes(of: r.words) { words in
                c.withUnsafeMutableBufferPointer {
                    clttng_record_encode(
                        words.baseAddress!.assumingMemoryBound(to: UInt64.self), labels.0, labels.1, $0.baseAddress!)
                }
            }
            #expect(c == swift)
            let back = swift.withUnsafeBytes { TraceRecordLayout.decode(kind, from: $0, at: 0) }
            var expected = e
            expected.label = ""
            expected.label2 = ""
            #expect(back == expected)
        }
    }
}
