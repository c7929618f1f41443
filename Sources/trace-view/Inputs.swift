import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens TRACE, whatever it is (told apart by content): a binary trace file, a JSON Lines file,
/// or an LTTng CTF trace directory (read through libbabeltrace2). `-` reads standard input.
struct TraceInput {
    enum Kind: String {
        case binary = "trace file"
        case jsonLines = "JSON Lines"
        case ctf = "LTTng CTF trace"
    }

    let path: String
    let kind: Kind
    private var bytes: [UInt8]?

    init(path: String) throws {
        self.path = path
        if path == "-" {
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                all += chunk[0..<n]
            }
            bytes = all
            kind = Self.kind(of: Array(all.prefix(64)))
            guard kind != .ctf else { throw CLIError.data("-: not a trace") }
            return
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError.data("\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard CTFTraceReader.isAvailable else {
                throw CLIError.data("\(path): a directory, but this build cannot read CTF traces (no libbabeltrace2)")
            }
            guard CTFTraceReader.isCTF(path: path) else {
                throw CLIError.data("\(path): a directory without an LTTng CTF trace (no metadata file)")
            }
            kind = .ctf
            return
        }
        guard let file = fopen(path, "rb") else {
            throw CLIError.data("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        var head = [UInt8](repeating: 0, count: 64)
        let n = fread(&head, 1, head.count, file)
        fclose(file)
        kind = Self.kind(of: Array(head.prefix(n)))
    }

    private static func kind(of head: [UInt8]) -> Kind {
        if head.starts(with: TraceFileFormat.magic) { return .binary }
        if head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") { return .jsonLines }
        return .binary  // the binary reader names what is wrong with it
    }

    /// Streams every event to `body`; returns the reader's notes (with values no runtime writes,
    /// see ``TraceSanity``) and the recorder counts if any.
    func forEach(_ body: (TraceEvent) -> Void) throws -> (notes: [String], counts: TraceCounts?) {
        var sanity = TraceSanity()
        let (notes, counts) = try readEvents { event in
            sanity.consume(event)
            body(event)
        }
        return (notes + sanity.notes, counts)
    }

    private func readEvents(_ body: (TraceEvent) -> Void) throws -> (notes: [String], counts: TraceCounts?) {
        switch kind {
        case .ctf:
            do {
                let notes = try CTFTraceReader.read(path: path, body)
                return (notes, nil)
            } catch {
                throw CLIError.data("\(error)")
            }
        case .binary:
            let reader: TraceFileReader
            do {
                reader = try bytes.map { try TraceFileReader(bytes: $0, name: "-") } ?? TraceFileReader(path: path)
            } catch let error as TraceFileError {
                throw CLIError.data(error.description)
            }
            while let e = reader.next() { body(e) }
            return (reader.notes, reader.footer)
        case .jsonLines:
            let reader: JSONLinesReader
            do {
                reader = try bytes.map { JSONLinesReader(bytes: $0, name: "-") } ?? JSONLinesReader(path: path)
            } catch let error as TraceFileError {
                throw CLIError.data(error.description)
            }
            while let e = reader.next() { body(e) }
            if reader.eventCount == 0 && !reader.notes.isEmpty {
                throw CLIError.data("\(path): not a trace: \(reader.notes[0])")
            }
            return (reader.notes, reader.footer)
        }
    }

    /// Reads every event into memory (for the commands that need random access).
    func load() throws -> Trace {
        var events: [TraceEvent] = []
        let (notes, counts) = try forEach { events.append($0) }
        return Trace(events: events, counts: counts ?? TraceCounts(events: UInt64(events.count)), notes: notes)
    }
}
