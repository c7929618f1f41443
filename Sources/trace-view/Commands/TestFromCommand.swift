import TraceInputs
import TransduceTrace

/// `trace-view test-from TRACE --from C1 --to C2`: a window of recorded cycles written as a
/// Swift Testing test that replays it through `TestStore`.
enum TestFromCommand: Subcommand {
    static let spec = CommandSpec(
        name: "test-from", abstract: "Write a window of recorded cycles as a Swift Testing test",
        options: OptionSpec.selection + [
            OptionSpec("from", "CYCLE", "The window's first cycle (as sequence and slow number them)", required: true),
            OptionSpec("to", "CYCLE", "Its last cycle (at most 5,000 cycles in all)", required: true),
            OptionSpec("type", "NAME", "The feature's type as the test names it (default: the transducer's name in the trace)"),
            OptionSpec("module", "NAME", "The module to @testable import (default: none, for a test compiled with the feature)"),
            OptionSpec("env", "EXPR", "The Swift expression the store gets as env: (for a feature with an Env)"),
            OptionSpec("suite", "NAME", "The suite's type name (default: TYPEFromTrace)"),
            OptionSpec("test", "NAME", "The test's function name (default: replaysRecordedCycles)"),
            OptionSpec("output", "FILE", "Write to FILE instead of standard output (atomically where FILE is a regular file)"),
        ],
        discussion: """
            Writes a test from a recorded window of one runtime: its store starts from the state
            the cycle before the window committed (or from initialState when the window starts at
            the runtime's start), sends each event the runtime was sent, receives each event its
            tasks and chains fed back, in the recorded order, and asserts each cycle's committed
            state as recorded. The trace must hold the values: record with
            PayloadCapture.codable(states: .snapshots), with Codable events and state (a ring
            dump or JSON Lines; LTTng carries no values). The test compiles against the feature
            unchanged when its Event and State are Decodable and Equatable; a feature with an
            Env needs --env. What the test cannot make certain (a task's result that came after
            a later send, tasks that outlive the window) is said in its header and on standard
            error.
            """,
        epilogue: """
            EXAMPLE:
              trace-view test-from crash.tdtrace --runtime 1 --from 120 --to 160 \\
                  --module Shop --output Tests/ShopTests/CheckoutFromCrashTests.swift

            """)

    static func run(_ args: Arguments) throws {
        guard let from = try args.integer("from"), let to = try args.integer("to") else {
            throw CLIError.usage("test-from needs --from and --to")
        }
        guard from <= to else { throw CLIError.usage("--from \(from) comes after --to \(to)") }
        var builder: TestWindowBuilder
        do {
            builder = try TestWindowBuilder(cycles: from...to)
        } catch let error as TestWindowError {
            throw CLIError.usage(error.description)
        }
        let source = try TraceSource(args, access: .once)
        try source.pass { builder.consume($0) }
        let window: TestWindow
        let writer: TestWindowSource
        do {
            window = try builder.finish()
            writer = try TestWindowSource(
                type: args.options["type"] ?? window.transducer, module: args.options["module"],
                env: args.options["env"], suite: args.options["suite"], test: args.options["test"], origin: source.name)
        } catch let error as TestWindowError {
            let damage = source.notes.isEmpty ? "" : " (the trace is damaged: \(source.notes[0]))"
            switch error.kind {
            case .usage: throw CLIError.usage(error.description)
            case .notInTrace: throw CLIError(error.description + damage, .nothingSelected)
            case .notRecorded: throw CLIError.data(error.description + damage)
            }
        }
        let output = try OutputFile(path: args.options["output"])
        output.write(Array((writer.render(window).joined(separator: "\n") + "\n").utf8))
        try output.close()
        if !window.racing.isEmpty {
            Terminal.error(
                "trace-view: note: cycle\(window.racing.count == 1 ? "" : "s") "
                    + "\(window.racing.map(String.init).joined(separator: ", ")) received a task's result after a later "
                    + "send: the test holds only while that task is slower than the send")
        }
        try finish(notes: source.notes)
    }
}
