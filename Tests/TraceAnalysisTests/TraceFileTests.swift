import CTraceRing
import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

@Suite struct TraceFileTests {
    let trace = Trace(
        events: sampleEvents(),
        counts: TraceCounts(events: 42, overwritten: 3, discarded: 4, lost: 5, monotonicOrigin: 6, realtimeOrigin: 7))

    @Test func binaryRoundTripKeepsEveryKindAndField() throws {
        let reader = try TraceFileReader(bytes: trace.binaryBytes())
        let read = reader.readAll()
        #expect(read.notes.isEmpty)
        #expect(read.events == trace.events)
        #expect(read.counts.overwritten == 3 && read.counts.discarded == 4 && read.counts.lost == 5)
        #expect(read.counts.monotonicOrigin == 6 && read.counts.realtimeOrigin == 7)
        #expect(read.counts.events == UInt64(trace.events.count))
    }

    /// `forEach` decodes into two events in turn, assigning a text only when its id changes: in any order
    /// of labels set, emptied and repeated, host kinds and payloads, it hands over what was written.
    @Test func forEachHandsOverEveryEventAsWritten() throws {
        var numbers = SeededRandom(seed: 3)
        for round in 0..<20 {
            var events = trace.events
            for i in events.indices.reversed() { events.swapAt(i, Int(numbers.next(below: UInt64(i + 1)))) }
            if round % 2 == 1 { events += events.prefix(Int(numbers.next(below: UInt64(events.count)))) }
            let reader = try TraceFileReader(bytes: Trace(events: events).binaryBytes())
            var read: [TraceEvent] = []
            reader.forEach { read.append($0) }
            #expect(read == events && reader.notes.isEmpty && reader.eventCount == events.count)
        }
    }

    /// A record whose own bytes are impossible (an unknown kind) under a right checksum: at any
    /// place in its chunk (the first or second of the pair `forEach` decodes before handing
    /// either over, or the last alone), every event before it is handed over, in order, and the
    /// note says where it stopped and how many came before.
    @Test func aDamagedRecordEndsTheReadAfterEveryEventBeforeIt() throws {
        var events: [TraceEvent] = []
        for i in 0..<7 {
            var e = TraceEvent(kind: .transduce, time: UInt64(100 + i), thread: 1, runtime: 1)
            e.label = "event-\(i % 3)"
            events.append(e)
        }
        let bytes = Trace(events: events).binaryBytes()
        // The one events chunk: its header's offset, and its records'.
        var offset = TraceFileFormat.headerSize
        while bytes[offset] != 2 {
            offset += TraceFileFormat.chunkHeaderSize + Int(bytes.withUnsafeBytes { $0.le(offset + 4, as: UInt32.self) })
        }
        let payload = offset + TraceFileFormat.chunkHeaderSize
        let length = Int(bytes.withUnsafeBytes { $0.le(offset + 4, as: UInt32.self) })
        #expect(length == 4 + events.count * TraceFileFormat.recordSize)
        for damaged in events.indices {
            var bad = bytes
            bad[payload + 4 + damaged * TraceFileFormat.recordSize + Int(CLTTNG_RECORD_KIND)] = 0xFF
            let crc = CRC32.checksum(Array(bad[payload..<(payload + length)]))
            for (i, byte) in withUnsafeBytes(of: crc.littleEndian, Array.init).enumerated() { bad[offset + 8 + i] = byte }
            var handed: [TraceEvent] = []
            let reader = try TraceFileReader(bytes: bad, name: "damaged")
            reader.forEach { handed.append($0) }
            #expect(handed == Array(events.prefix(damaged)), "record \(damaged)")
            #expect(reader.eventCount == damaged)
            #expect(reader.notes.count == 1)
            #expect(reader.notes.first?.contains("unknown event kind 255") == true)
            #expect(reader.notes.first?.contains("\(damaged) event") == true, "\(reader.notes)")
            // Asked before each event: stopped one short of the damage, no note.
            if damaged > 0 {
                var asked: [TraceEvent] = []
                let again = try TraceFileReader(bytes: bad, name: "damaged")
                again.forEach(while: { asked.count < damaged - 1 }) { asked.append($0) }
                #expect(asked == Array(events.prefix(damaged - 1)) && again.notes.isEmpty)
                // And read on from there: the one left, then the damage.
                again.forEach { asked.append($0) }
                #expect(asked == Array(events.prefix(damaged)) && again.notes.count == 1)
            }
        }
    }

    /// ``TraceFileReader/stop()`` ends `forEach` after the event being handed over, at every place
    /// of a pair; a later `forEach` reads on from the next.
    @Test func aReaderStoppedByItsBodyReadsOnFromTheNext() throws {
        let bytes = trace.binaryBytes()
        for stopAt in 0..<min(6, trace.events.count - 1) {
            let reader = try TraceFileReader(bytes: bytes)
            var handed: [TraceEvent] = []
            reader.forEach {
                handed.append($0)
                if handed.count == stopAt + 1 { reader.stop() }
            }
            #expect(handed == Array(trace.events.prefix(stopAt + 1)))
            #expect(reader.eventCount == stopAt + 1)
            reader.forEach { handed.append($0) }
            #expect(handed == trace.events && reader.notes.isEmpty)
        }
    }

    @Test func jsonLinesRoundTripKeepsEveryKindAndField() throws {
        let read = JSONLinesReader(bytes: trace.jsonLinesBytes()).readAll()
        #expect(read.notes.isEmpty)
        #expect(read.events == trace.events)
        #expect(read.counts.overwritten == 3 && read.counts.lost == 5)
    }

    @Test func filesOnDisk() throws {
        let dir = TemporaryDirectory()
        for format in TraceFileWriter.Format.allCases {
            let path = dir.file("t.\(format.rawValue)")
            try TraceFileWriter.write(trace, to: path, format: format)
            let read =
                format == .binary ? try TraceFileReader(path: path).readAll() : try JSONLinesReader(path: path).readAll()
            #expect(read.events == trace.events)
        }
        #expect(throws: TraceFileError.self) { try TraceFileWriter.write(trace, to: dir.file("missing/dir/t")) }
    }

    @Test func largeTracesSpanSeveralChunks() throws {
        var events: [TraceEvent] = []
        for i in 0..<150_000 {
            var e = TraceEvent(kind: .transduce, time: UInt64(i), thread: 1, runtime: 1)
            e.cycle = UInt64(i)
            e.label = "event-\(i % 7)"
            events.append(e)
        }
        let big = Trace(events: events)
        let reader = try TraceFileReader(bytes: big.binaryBytes())
        var count = 0
        while let event = reader.next() {
            #expect(event.cycle == UInt64(count))
            count += 1
        }
        #expect(count == 150_000)
        #expect(reader.notes.isEmpty)
    }

    @Test func truncatedFilesReturnWhatCouldBeRead() throws {
        let bytes = trace.binaryBytes()
        var previous = -1
        for length in stride(from: 16, to: bytes.count, by: 7) {
            let reader = try TraceFileReader(bytes: Array(bytes.prefix(length)), name: "cut")
            let read = reader.readAll()
            #expect(read.events == Array(trace.events.prefix(read.events.count)))
            #expect(read.events.count >= previous)
            previous = read.events.count
            #expect(read.notes.count == 1)
            #expect(read.notes.first?.contains("byte offset") == true)
        }
    }

    /// A descriptor lends each chunk where it read it (a file's blocks, a pipe's pieces of any
    /// size, chunks across them): whole, cut at any length or with a byte flipped, the events and
    /// notes are those of the same bytes copied from memory.
    @Test func chunksLentByADescriptorReadAsCopiedOnes() throws {
        var events = trace.events
        for i in 0..<12_000 {
            var e = TraceEvent(kind: .transduce, time: UInt64(i), thread: 1, runtime: UInt64(1 + i % 3))
            e.label = "event-\(i % 11)"
            e.process = UInt32(1 + i / 7 % 2)
            events.append(e)
        }
        let whole = Trace(events: events).binaryBytes()
        let dir = TemporaryDirectory()
        var cases: [(name: String, bytes: [UInt8])] = [("whole", whole)]
        for length in stride(from: 16, to: whole.count, by: whole.count / 23) {
            cases.append(("cut", Array(whole.prefix(length))))
        }
        for position in stride(from: 16, to: whole.count, by: whole.count / 17) {
            var damaged = whole
            damaged[position] ^= 0x40
            cases.append(("flipped", damaged))
        }
        for (i, (name, bytes)) in cases.enumerated() {
            let copied = try TraceFileReader(bytes: bytes, name: name).readAll()
            let path = dir.file("\(i).tdtrace")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let fromFile = try TraceFileReader(source: #require(DescriptorSource(path: path)), name: name).readAll()
            let fromPipe = try Self.readThroughPipe(bytes, name: name, piece: 1 + i * 977 % 5_000)
            for read in [fromFile, fromPipe] {
                #expect(read.events == copied.events && read.notes == copied.notes, "\(name) \(i)")
                #expect(read.hosts == copied.hosts)
            }
            if name == "whole" { #expect(copied.events == events && copied.notes.isEmpty) }
        }
    }

    /// A descriptor's reads and loans of any size (a loan larger than its block, across blocks,
    /// past the end) take the bytes in order.
    @Test func aDescriptorLendsAndReadsTheBytesInOrder() {
        let bytes = (0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let source = DescriptorSource(descriptor: Self.pipeWriting(bytes, piece: 70_001), closes: true)
        var taken: [UInt8] = []
        var sizes = [12, 850, 1_300_000, 1, 1 << 20, 17, 200_000]
        var lends = true
        while true {
            let size = sizes.removeFirst()
            sizes.append(size)
            lends.toggle()
            if lends {
                guard let lent = source.lend(size) else { break }
                taken += lent
            } else {
                var buffer = [UInt8](repeating: 0, count: size)
                let n = source.read(into: &buffer, count: size)
                taken += buffer.prefix(n)
                if n < size { break }
            }
        }
        // A loan past the end takes nothing: what is left is read.
        var rest = [UInt8](repeating: 0, count: 1 << 22)
        let n = source.read(into: &rest, count: rest.count)
        taken += rest.prefix(n)
        #expect(taken.count == bytes.count && taken == bytes)
    }

    /// The read end of a pipe that a thread writes `bytes` to in pieces of `piece` bytes, then
    /// closes: read it to its end (the writer waits while the pipe is full).
    static func pipeWriting(_ bytes: [UInt8], piece: Int) -> Int32 {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let writer = Thread {
            var at = 0
            while at < bytes.count {
                let n = bytes[at..<min(at + piece, bytes.count)].withUnsafeBytes { write(writeEnd, $0.baseAddress!, $0.count) }
                guard n > 0 else { break }
                at += n
            }
            close(writeEnd)
        }
        writer.start()
        return readEnd
    }

    /// `bytes` read by a trace reader from a pipe they are written to in pieces of `piece` bytes.
    static func readThroughPipe(_ bytes: [UInt8], name: String, piece: Int) throws -> Trace {
        let source = DescriptorSource(descriptor: pipeWriting(bytes, piece: piece), closes: true)
        let read = try TraceFileReader(source: source, name: name).readAll()
        // The rest (after damage) is read too, so the writer ends before the pipe is closed.
        var rest = [UInt8](repeating: 0, count: 1 << 16)
        while source.read(into: &rest, count: rest.count) > 0 {}
        return read
    }

    @Test func flippedBytesAreDetected() throws {
        let bytes = trace.binaryBytes()
        for position in stride(from: 16, to: bytes.count, by: 5) {
            var damaged = bytes
            damaged[position] ^= 0x40
            let read = try TraceFileReader(bytes: damaged, name: "flipped").readAll()
            #expect(read.notes.count == 1, "flip at \(position) went unnoticed")
            #expect(read.events == Array(trace.events.prefix(read.events.count)))
        }
    }

    /// A reader takes a process chunk whose checksum and bytes are those of one it checked before
    /// as checked (a two-process trace repeats one before every run of events): any byte of a
    /// repeat changed, or its checksum, is still caught, and a repeat that names a new host with
    /// a right checksum still moves the host: with two processes (every repeat remembered) and
    /// with more than the reader remembers.
    @Test(arguments: [2, 12]) func repeatedProcessChunksAreCheckedByTheirBytes(processes: Int) throws {
        var numbers = SeededRandom(seed: 11)
        var hosts: [UInt32: String] = [:]
        let last = UInt32(processes)
        for pid in UInt32(1)...last where pid != 5 {
            hosts[pid] = pid == 7 ? String(repeating: "h", count: 70) : "host-\(pid)"
        }
        var events: [TraceEvent] = []
        var pid: UInt32 = 1
        for i in 0..<3_000 {
            if numbers.chance(30) { pid = numbers.chance(70) ? pid % last + 1 : UInt32(1 + numbers.next(below: UInt64(last))) }
            var e = TraceEvent(kind: .transduce, time: UInt64(i + 1), thread: 1, runtime: UInt64(1 + i % 3))
            e.label = "event-\(i % 5)"
            e.process = pid
            events.append(e)
        }
        var written = Trace(events: events)
        written.hosts = hosts
        let whole = written.binaryBytes()
        func read(_ bytes: [UInt8]) throws -> (events: [TraceEvent], notes: [String], hosts: [UInt32: String]) {
            let stepped = try TraceFileReader(bytes: bytes, name: "t").readAll()
            let reader = try TraceFileReader(bytes: bytes, name: "t")
            var streamed: [TraceEvent] = []
            reader.forEach { streamed.append($0) }
            #expect(streamed == stepped.events && reader.notes == stepped.notes && reader.hosts == stepped.hosts)
            return (stepped.events, stepped.notes, stepped.hosts)
        }
        let plain = try read(whole)
        #expect(plain.events == events && plain.notes.isEmpty && plain.hosts == hosts)

        // The process chunks that repeat one of their process written before.
        var repeats: [(offset: Int, length: Int, pid: UInt32)] = []
        var seen: Set<UInt32> = []
        var offset = TraceFileFormat.headerSize
        while offset + TraceFileFormat.chunkHeaderSize <= whole.count {
            let length = whole.withUnsafeBytes { Int($0.le(offset + 4, as: UInt32.self)) }
            if whole[offset] == TraceFileFormat.Tag.process.rawValue {
                let pid = whole.withUnsafeBytes { $0.le(offset + TraceFileFormat.chunkHeaderSize, as: UInt32.self) }
                if !seen.insert(pid).inserted { repeats.append((offset, length, pid)) }
            }
            offset += TraceFileFormat.chunkHeaderSize + length
        }
        #expect(repeats.count > 100)
        for (n, chunk) in repeats.enumerated() where n % 7 == 0 {
            let payload = chunk.offset + TraceFileFormat.chunkHeaderSize
            // A byte of the pid, of the host, the last byte, or of the checksum itself.
            for position in [payload, payload + chunk.length - 1, payload + 4 + n % max(1, chunk.length - 4), chunk.offset + 9]
            where position < payload + chunk.length || position == chunk.offset + 9 {
                var damaged = whole
                damaged[position] ^= 0x20
                let got = try read(damaged)
                #expect(got.notes.count == 1, "flip at \(position) went unnoticed")
                #expect(got.notes.first?.contains("checksum mismatch in a process chunk") == true)
                #expect(got.notes.first?.contains("byte offset \(chunk.offset);") == true)
                #expect(got.events == Array(events.prefix(got.events.count)))
            }
        }
        // A repeat renamed, its checksum made right: the host is the one the process's last
        // chunk names, as when every chunk is compared (renamed, then named as before again by
        // a later repeat: the bytes of a chunk checked before the renaming).
        let named = repeats.indices.filter { repeats[$0].length > 4 }
        for i in [named[named.count / 2], named.last!] {
            let chunk = repeats[i]
            var moved = whole
            let start = chunk.offset + TraceFileFormat.chunkHeaderSize
            moved[start + 4] = UInt8(ascii: "H")
            let checksum = CRC32.checksum(Array(moved[start..<start + chunk.length]))
            for k in 0..<4 { moved[chunk.offset + 8 + k] = UInt8(truncatingIfNeeded: checksum >> (8 * k)) }
            let later = repeats[(i + 1)...].contains { $0.pid == chunk.pid }
            let after = try read(moved)
            #expect(after.events == events && after.notes.isEmpty)
            #expect(after.hosts[chunk.pid] == (later ? hosts[chunk.pid]! : "H" + hosts[chunk.pid]!.dropFirst()), "\(i)")
            #expect(i == named.last! || later)
        }
    }

    @Test func foreignFilesAreRejectedWithTheOffset() throws {
        let bytes = trace.binaryBytes()
        var wrongMagic = bytes
        wrongMagic[1] = 0x58
        #expect(
            throws: TraceFileError(.notATrace, path: "x", offset: 0, reason: "not a Transduce trace file (bad magic number)")
        ) {
            try TraceFileReader(bytes: wrongMagic, name: "x")
        }
        var future = bytes
        future[8] = 9
        let error = #expect(throws: TraceFileError.self) { try TraceFileReader(bytes: future, name: "f") }
        #expect(error?.offset == 8 && error?.code == .unsupportedVersion)
        #expect(error?.description.contains("version 9") == true)
        // Each failure has its code, to branch on without reading the words.
        let cases: [(TraceFileError.Code, () throws -> TraceFileReader)] = [
            (.empty, { try TraceFileReader(bytes: [], name: "empty") }),
            (.notATrace, { try TraceFileReader(bytes: Array("hello world, not a trace".utf8)) }),
            (.cannotOpen, { try TraceFileReader(path: "/nonexistent/trace") }),
            (.truncatedHeader, { try TraceFileReader(bytes: Array(bytes.prefix(9)), name: "short") }),
        ]
        for (code, read) in cases {
            let error = #expect(throws: TraceFileError.self) { _ = try read() }
            #expect(error?.code == code, "\(String(describing: error))")
        }
        var flagged = bytes
        flagged[10] = 1
        #expect((#expect(throws: TraceFileError.self) { try TraceFileReader(bytes: flagged) })?.code == .unknownFlags)
        let unwritable = #expect(throws: TraceFileError.self) {
            try TraceFileWriter.write(trace, to: "/nonexistent/dir/trace.tdtrace")
        }
        #expect(unwritable?.code == .cannotWrite)
    }

    @Test func absurdLengthsStopBeforeAllocating() throws {
        var bytes = Array(trace.binaryBytes().prefix(16))
        bytes += [2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0]
        let read = try TraceFileReader(bytes: bytes, name: "absurd").readAll()
        #expect(read.events.isEmpty)
        #expect(read.notes.first?.contains("impossible length") == true)
        #expect(read.notes.first?.contains("offset 16") == true)
        // An events chunk claiming more records than its length holds.
        var chunk: [UInt8] = []
        chunk.appendLE(UInt32(1000))
        chunk += [UInt8](repeating: 0, count: 80)
        var lying = Array(trace.binaryBytes().prefix(16)) + [2, 0, 0, 0]
        lying.appendLE(UInt32(chunk.count))
        lying.appendLE(CRC32.checksum(chunk))
        lying += chunk
        #expect(try TraceFileReader(bytes: lying).readAll().notes.first?.contains("does not match its count") == true)
    }

    @Test func malformedJSONLinesAreSkippedAndNoted() {
        let good = trace.jsonLinesBytes()
        let text = String(decoding: good, as: UTF8.self)
        var lines = text.split(separator: "\n").map(String.init)
        lines.insert("{\"kind\":\"dispatch\",\"time\":-1}", at: 2)
        lines.insert("not json", at: 4)
        lines.insert("{\"kind\":\"warp\"}", at: 6)
        lines.insert("{\"kind\":\"dispatch\",\"time\":1,\"style\":\"teleport\"}", at: 8)
        lines.insert("", at: 9)
        let read = JSONLinesReader(bytes: Array(lines.joined(separator: "\n").utf8), name: "j").readAll()
        #expect(read.events == trace.events)
        #expect(read.notes.count == 4)
        #expect(read.notes.allSatisfy { $0.hasPrefix("j: line ") })
        #expect(read.notes.contains { $0.contains("unknown kind \"warp\"") })
        #expect(read.notes.contains { $0.contains("unknown style \"teleport\"") })
    }

    @Test func hugeJSONLineIsRefused() {
        var bytes = Array("{\"kind\":\"".utf8)
        bytes += [UInt8](repeating: 0x61, count: 3 << 20)
        let read = JSONLinesReader(bytes: bytes).readAll()
        #expect(read.events.isEmpty)
        #expect(read.notes.first?.contains("longer than") == true)
    }

    @Test func crcMatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        // Every length around the tables' 8-byte stride and the folding's 16-, 64- and (256-bit
        // folding, from 256 bytes on) 128-byte blocks, a chunk's worth, and starts off alignment,
        // against the plain bitwise definition: the Swift reader's and the C dump writer's
        // checksums both.
        var x: UInt32 = 12_345
        for length in Array(0..<700) + [1_021, 4_096 + 13, 80 * 4_096 + 4] {
            let bytes = (0..<length + 3).map { _ -> UInt8 in
                x = x &* 1_103_515_245 &+ 12_345
                return UInt8(truncatingIfNeeded: x >> 16)
            }
            for start in [0, 1, 3] {
                let part = Array(bytes[start..<start + length])
                var crc: UInt32 = 0xFFFF_FFFF
                for b in part {
                    crc ^= UInt32(b)
                    for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
                }
                #expect(CRC32.checksum(part) == ~crc, "length \(length)")
                let unaligned = bytes.withUnsafeBytes {
                    CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<start + length]))
                }
                #expect(unaligned == ~crc, "length \(length) from byte \(start)")
                let c = bytes.withUnsafeBufferPointer { clttng_crc32($0.baseAddress! + start, length) }
                #expect(c == ~crc, "C, length \(length) from byte \(start)")
            }
        }
    }
}
