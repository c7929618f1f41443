import CBabeltrace
import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace
@testable import TransduceTraceCTF

/// The CTF reading child's own parts: its table of texts numbered by their bytes, and the
/// encoder's numbered path that writes them as the file's strings (no LTTng needed); and the
/// child as a whole, against each process's ring and against the in-process reader.
@Suite struct CTFReadingTests {
    /// Texts a user's labels may be: empty, the provider's empty mark, combining marks, bytes
    /// that are not UTF-8, texts that differ only in their last byte or their length, and
    /// thousands of distinct ones (the table grows many times).
    static func corpus() -> [[UInt8]] {
        var generator = SystemRandomNumberGenerator()
        var texts: [[UInt8]] = [
            [], Array(CTFTraceReader.emptyText.utf8), Array("e\u{0301}".utf8), Array("\u{0301}".utf8),
            [0xFF, 0xFE, 0x00, 0x41], Array("load".utf8), Array("load ".utf8), Array("loae".utf8), [0],
            Array(repeating: 0x61, count: 8), Array(repeating: 0x61, count: 9), Array(repeating: 0x61, count: 7),
            Array(repeating: 0x62, count: 70_000),
        ]
        for i in 0..<5_000 { texts.append(Array("label-\(i)".utf8)) }
        for _ in 0..<2_000 {
            let length = Int.random(in: 1...40, using: &generator)
            texts.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        return texts
    }

    @Test func textsAreNumberedOnceByTheirBytesInTheOrderFirstSeen() {
        let table = CTFTextTable()
        var oracle: [[UInt8]: UInt32] = [[]: 0, Array(CTFTraceReader.emptyText.utf8): 0]
        var order: [[UInt8]] = [[]]
        // Every text three times, shuffled: a number never changes once given.
        let texts = Self.corpus()
        for text in (texts + texts + texts).shuffled() {
            let number = text.withUnsafeBytes { table.number($0) }
            if let known = oracle[text] {
                #expect(number == known, "\(text.prefix(12)) was \(known), now \(number)")
            } else {
                #expect(Int(number) == order.count, "a new text is numbered next")
                oracle[text] = number
                order.append(text)
            }
        }
        #expect(table.count == order.count)
        for (number, text) in order.enumerated() {
            #expect(Array(table.text(UInt32(number))) == text)
            #expect(table.string(UInt32(number)) == String(decoding: text, as: UTF8.self))
        }
        #expect(table.string(0) == "")
    }

    /// Events encoded with numbered texts read back as the same events encoded with strings,
    /// across processes that interleave, flushes in the middle of a chunk and texts longer than
    /// a string chunk holds.
    @Test func numberedTextsEncodeAsStringsDo() throws {
        let texts = Self.corpus()
        let table = CTFTextTable()
        var events: [TraceEvent] = []
        var numbers: [(UInt32, UInt32)] = []
        for i in 0..<6_000 {
            var event = TraceEvent(
                kind: i % 7 == 0 ? .runtimeStart : .dispatch, time: UInt64(i), thread: UInt32(i % 5), runtime: UInt64(i % 3))
            event.process = [10, 10, 11, 12, 10][i % 5]
            event.dispatch = UInt64(i)
            let label = texts[(i * 7_919) % texts.count]
            let second = event.kind == .runtimeStart ? texts[(i * 104_729) % texts.count] : []
            let n = (label.withUnsafeBytes { table.number($0) }, second.withUnsafeBytes { table.number($0) })
            event.label = table.string(n.0)
            event.label2 = table.string(n.1)
            events.append(event)
            numbers.append(n)
        }
        var byStrings: [UInt8] = []
        var strings = TraceFileEncoder()
        var byNumbers: [UInt8] = []
        var numbered = TraceFileEncoder()
        for (i, event) in events.enumerated() {
            strings.append(event, into: { byStrings += $0 })
            var bare = event
            bare.label = "unread"
            bare.label2 = "unread"
            numbered.append(bare, label: numbers[i].0, label2: numbers[i].1, text: table.text, into: { byNumbers += $0 })
            if i % 1_500 == 700 { numbered.flush(into: { byNumbers += $0 }) }
        }
        let counts = TraceCounts(events: UInt64(events.count))
        strings.finish(counts: counts, into: { byStrings += $0 })
        numbered.finish(counts: counts, into: { byNumbers += $0 })
        let expected = try TraceFileReader(bytes: byStrings).readAll()
        let read = try TraceFileReader(bytes: byNumbers).readAll()
        #expect(read.notes == [], "\(read.notes.prefix(3))")
        #expect(expected.notes == [])
        #expect(read.events.count == events.count)
        let differ = read.events.indices.first { $0 < expected.events.count && read.events[$0] != expected.events[$0] }
        #expect(differ == nil, "event \(differ ?? -1) differs: \(differ.map { read.events[$0] }.debugDescription)")
        #expect(read.counts == expected.counts)
        // The long text was cut where a string chunk ends, as the string path cuts it.
        #expect(read.events.contains { $0.label.utf8.count == TraceFileFormat.maxStringBytes })
    }
}

extension CTFReadingTests {
    /// Events as cbabeltrace.c hands them over, made here: 300 classes (each kind's fields 20
    /// times over, at 20 addresses, so the class cache's places are shared), another provider's
    /// class, an unknown `transduce:` class, and a generation that changes midway. Each maps to
    /// what the schema's own setters make of the same fields.
    @Test func classesMapByTheirAddressesWithinAGeneration() throws {
        var owned: [UnsafeMutableRawPointer] = []
        defer { for p in owned { p.deallocate() } }
        func cString(_ text: String) -> UnsafePointer<CChar> {
            let bytes = Array(text.utf8CString)
            let p = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            owned.append(p)
            bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            return UnsafePointer(p.assumingMemoryBound(to: CChar.self))
        }
        struct FakeClass {
            var key: UnsafeRawPointer
            var name: UnsafePointer<CChar>
            var kind: TraceEvent.Kind?
            var fields: [(name: UnsafePointer<CChar>, field: TraceSchema.Field?)]
        }
        var classes: [FakeClass] = []
        for copy in 0..<20 {
            for kind in TraceEvent.Kind.allCases {
                let key = UnsafeMutableRawPointer.allocate(byteCount: 16 + copy * 16, alignment: 16)
                owned.append(key)
                let schema = TraceSchema.fields(of: kind)
                let fields = [(cString("runtime"), nil)] + schema.map { (cString($0.name), Optional($0)) }
                classes.append(FakeClass(key: key, name: cString("transduce:" + kind.lttngName), kind: kind, fields: fields))
            }
        }
        let otherKey = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        let unknownKey = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        owned += [otherKey, unknownKey]
        classes.append(FakeClass(key: otherKey, name: cString("lttng_ust_statedump:start"), kind: nil, fields: []))
        classes.append(FakeClass(key: unknownKey, name: cString("transduce:no_such_event"), kind: nil, fields: []))

        var mapper = CTFEventMapper(texts: CTFTextTable())
        var generator = SystemRandomNumberGenerator()
        let labels = ["load", "ping", "e\u{0301}", "", CTFTraceReader.emptyText, "a much longer label than sixteen bytes"]
        var mapped = 0
        for i in 0..<20_000 {
            let fake = classes[Int.random(in: 0..<classes.count, using: &generator)]
            var expected = TraceEvent(kind: fake.kind ?? .runtimeStart, time: UInt64(i), thread: UInt32(i % 7), runtime: 0)
            expected.process = UInt32(100 + i % 3)
            var texts: [[UInt8]] = []
            var fields: [cbt_field] = []
            for (name, field) in fake.fields {
                var f = cbt_field()
                f.name = name
                if let field, field.slot.isText {
                    let text =
                        switch field.slot {
                        case .code: TraceNames.codeName(kind: fake.kind!, code: UInt8(i % 2))
                        case .code2: TraceNames.secondCodes(of: fake.kind!).first ?? ""
                        default: labels[(i / 3) % labels.count]
                        }
                    _ = expected.set(field.slot, text: text == CTFTraceReader.emptyText ? "" : text)
                    texts.append(Array(text.utf8))
                    f.is_text = 1
                } else {
                    let value = field == nil ? UInt64(1 + i % 5) : UInt64(i % 200)
                    if let field { _ = expected.set(field.slot, integer: value) } else { expected.runtime = value }
                    f.integer = value
                }
                fields.append(f)
            }
            var event = TraceEvent(kind: .eventDropped, time: 9, runtime: 9)
            event.dispatch = 77  // a field the class does not set must come out zero
            event.nanos = 77
            // The texts' bytes in one allocation, as libbabeltrace2's own storage would hold them.
            let storage = UnsafeMutableRawPointer.allocate(byteCount: texts.reduce(1) { $0 + $1.count }, alignment: 1)
            defer { storage.deallocate() }
            var offset = 0
            var next = 0
            for j in fields.indices where fields[j].is_text != 0 {
                let bytes = texts[next]
                next += 1
                for (k, byte) in bytes.enumerated() { storage.storeBytes(of: byte, toByteOffset: offset + k, as: UInt8.self) }
                fields[j].text = UnsafePointer((storage + offset).assumingMemoryBound(to: CChar.self))
                fields[j].text_length = UInt32(bytes.count)
                offset += bytes.count
            }
            let got = fields.withUnsafeBufferPointer { buffer in
                var raw = cbt_event()
                raw.name = fake.name
                raw.event_class = UnsafeRawPointer(fake.key)
                raw.generation = i < 10_000 ? 1 : 2
                raw.clock_ns = UInt64(i)
                raw.vtid = UInt32(i % 7)
                raw.vpid = UInt32(100 + i % 3)
                raw.field_count = UInt32(buffer.count)
                raw.fields = buffer.baseAddress
                return mapper.map(raw, into: &event)
            }
            guard let kind = fake.kind else {
                #expect(got == nil, "\(String(cString: fake.name)) is not read")
                continue
            }
            let numbers = try #require(got, "\(kind) at \(i)")
            event.label = mapper.texts.string(numbers.label)
            event.label2 = mapper.texts.string(numbers.label2)
            #expect(event == expected, "\(kind) at \(i)")
            mapped += 1
        }
        #expect(mapped > 15_000)
        #expect(mapper.notes.contains("unknown event transduce:no_such_event skipped"))
        #expect(mapper.notes.allSatisfy { $0.hasPrefix("unknown event") }, "\(mapper.notes.prefix(2))")
        // An event with fewer fields than its class (cbabeltrace.c out of memory) is not read.
        var short = cbt_event()
        short.name = classes[0].name
        short.event_class = UnsafeRawPointer(classes[0].key)
        short.generation = 2
        var event = TraceEvent(kind: .eventDropped, time: 0, runtime: 0)
        #expect(mapper.map(short, into: &event) == nil)
        #expect(mapper.notes.last == "transduce:\(classes[0].kind!.lttngName): an event's fields could not be read")
    }
}

extension LTTngTests {
    /// The reading child (trace-view's way into every CTF trace) hands over what each process's
    /// ring recorded, field for field, and exactly what the in-process reader reads, event for
    /// event in the same order: three processes at once, each with the same labels.
    @Test(.enabled(if: LTTngTools.available)) func theReadingChildHandsOverWhatEachRingRecorded() async throws {
        let dir = TemporaryDirectory()
        let (ctf, rings) = try await recordExamples(3, repeats: 3, in: dir)

        let jsonl = dir.file("events.jsonl")
        let exported = try await traceView(["export", "--format", "jsonl", "--output", jsonl, ctf])
        #expect(exported.status == 0, "\(exported.err)")
        let child = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: jsonl)))).readAll()
        #expect(child.notes == [], "\(child.notes.prefix(3))")

        // The in-process reader, of these processes alone.
        let inProcess = try CTFTraceReader.readAll(path: ctf).events.filter { rings[$0.process] != nil }
        #expect(child.events.count == inProcess.count)
        let differ = child.events.indices.first { $0 < inProcess.count && child.events[$0] != inProcess[$0] }
        #expect(
            differ == nil, "event \(differ ?? -1) differs: \(differ.map { (child.events[$0], inProcess[$0]) }.debugDescription)")

        for (pid, ring) in rings {
            var remaining: [Comparable: Int] = [:]
            for e in ring { remaining[Comparable(e), default: 0] += 1 }
            var unknown = 0
            for e in child.events where e.process == pid {
                let key = Comparable(e)
                if let n = remaining[key] { remaining[key] = n == 1 ? nil : n - 1 } else { unknown += 1 }
            }
            #expect(unknown == 0, "pid \(pid): \(unknown) events not in its ring")
            #expect(remaining.isEmpty, "pid \(pid): ring events the child did not hand over: \(remaining.keys.prefix(2))")
        }
        #expect(Set(child.events.map(\.process)) == Set(rings.keys))
        #expect(!child.hosts.isEmpty, "each process's host is handed over")
    }
}
