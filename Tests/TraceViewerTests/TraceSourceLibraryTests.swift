import Testing
import TraceInputs
import TransduceTestSupport
import TransduceTrace

/// `TraceSource` used as a library (``TraceInputs``), in process, as a tool other than
/// trace-view would: the events each pass hands over are the ones written, whatever the input's
/// format; a trace file is read in place for each pass, anything else once, into a copy; the
/// selection keeps its runtime's events and says when it matched none.
@Suite struct TraceSourceLibraryTests {
    /// Three runtimes of two processes, 600 events; runtime 2 of process 7 has 200 of them.
    let events: [TraceEvent] = (0..<600).map { i in
        var e = TraceEvent(kind: .transduce, time: UInt64(1_000 + i), thread: 1, runtime: UInt64(1 + i % 3))
        e.process = i % 3 == 1 ? 7 : 8
        e.cycle = UInt64(i)
        e.label = "event-\(i % 4)"
        return e
    }

    private func passes(_ source: TraceSource, _ count: Int) throws -> [[TraceEvent]] {
        try (0..<count).map { _ in
            var read: [TraceEvent] = []
            try source.pass { read.append($0) }
            return read
        }
    }

    @Test(arguments: [TraceFileWriter.Format.binary, .jsonLines])
    func everyPassHandsOverWhatWasWritten(format: TraceFileWriter.Format) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("t.\(format.rawValue)")
        try TraceFileWriter.write(Trace(events: events), to: path, format: format)
        let source = try TraceSource(path: path, selection: try Selection(runtime: nil, pid: nil), access: .passes)
        // A trace file is read again in place; JSON Lines once, into a binary copy.
        #expect(source.copies == (format != .binary))
        let read = try passes(source, 3)
        #expect(read.allSatisfy { $0 == events })
        #expect(source.passes == 3)
        #expect(source.inputReads == (format == .binary ? 3 : 1))
        #expect(source.firstTime == 1_000 && source.notes.isEmpty)
        #expect(source.selection.matched == events.count)
    }

    @Test func theSelectionKeepsItsRuntimeAndSaysWhenItMatchedNone() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("t.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let chosen = try TraceSource(path: path, selection: try Selection(runtime: 2, pid: 7), access: .passes)
        let read = try passes(chosen, 2)
        let expected = events.filter { $0.runtime == 2 && $0.process == 7 }
        #expect(expected.count == 200 && read.allSatisfy { $0 == expected })

        let none = try TraceSource(path: path, selection: try Selection(runtime: 2, pid: 8), access: .once)
        let error = #expect(throws: CLIError.self) { try none.pass { _ in } }
        #expect(error?.status == ExitStatus.nothingSelected.rawValue)

        let impossible = #expect(throws: CLIError.self) { try Selection(runtime: nil, pid: 1 << 33) }
        #expect(impossible?.status == ExitStatus.usage.rawValue)
    }
}
