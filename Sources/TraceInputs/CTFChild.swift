import CTraceRing
import Dispatch
import Synchronization
import TraceTooling
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading an LTTng CTF trace in a child process, under a time and a memory budget.
///
/// libbabeltrace2 runs inside whatever process calls it, and on damaged input it can hang (a
/// `metadata` file cut short), grow without bound, or abort on a failed precondition or a huge
/// `g_malloc`. So trace-view runs it in a child (`trace-view __read-ctf DIR`, this same binary)
/// whose data segment is limited (`RLIMIT_DATA`, ``memoryBudgetMB``) and which is killed after
/// ``timeBudget(for:)`` seconds; the child streams the events to the parent as a binary trace
/// (``TraceFileEncoder``) through a pipe, so everything read before a failure is still reported,
/// and the failure becomes a clear error (exit 65).
///
/// The child's standard error carries its notes (`note: …`), the host of each process
/// (`host: PID NAME`) and a fatal error (`error: …`).
///
/// The child is the running program's own executable (``selfExecutable()``) given ``command``:
/// a program that opens CTF through a ``TraceSource`` answers that command by running the
/// child's side (trace-view's `main` does, with its `CTFChild.run`).
package enum CTFChild {
    package static let command = "__read-ctf"
    static let memoryVariable = "TRANSDUCE_CTF_MEMORY_MB"
    static let timeVariable = "TRANSDUCE_CTF_SECONDS"

    package static var memoryBudgetMB: Int { environmentInteger(memoryVariable) ?? 2_048 }

    /// 30 s, plus one second per 2 MB of trace data (the trace directories' files).
    static func timeBudget(for path: String) -> Double {
        if let seconds = environmentInteger(timeVariable) { return Double(seconds) }
        return 30 + Double(directoryBytes(path, depth: 0) / 2_000_000)
    }

    private static func environmentInteger(_ name: String) -> Int? {
        guard let value = getenv(name) else { return nil }
        return Int(String(cString: value)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The bytes of regular files at or below `path`, within the depth the CTF reader searches.
    private static func directoryBytes(_ path: String, depth: Int) -> UInt64 {
        guard depth <= 6, let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        var total: UInt64 = 0
        var entries = 0
        while let entry = readdir(directory), entries < 4_096 {
            entries += 1
            let name = String(cField: entry.pointee.d_name)
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                total += directoryBytes(child, depth: depth + 1)
            } else if (info.st_mode & S_IFMT) == S_IFREG {
                total += UInt64(max(0, info.st_size))
            }
        }
        return total
    }

    // MARK: the parent

    /// Reads `path` through a child, streaming its events to `body`. Returns notes (the child's,
    /// and why it stopped if it failed), the counts and the hosts. Throws when the child could
    /// read nothing at all.
    /// With `live`, `path` is an LTTng live URL, read as it is recorded until the session ends.
    /// `started` is given the child's process id as soon as it runs (to stop it early).
    /// `memoryMB` is the child's memory budget (``memoryBudgetMB`` by default; several live
    /// readers share it).
    package static func read(
        path: String, recordTag: String? = nil, live: Bool = false, memoryMB: Int? = nil,
        started: (pid_t) -> Void = { _ in },
        _ body: (TraceEvent) -> Void
    ) throws -> (
        notes: [String], counts: TraceCounts?, hosts: [UInt32: String], lossesUnknown: Bool
    ) {
        // The child's standard error, in a file without a name: nothing is left in /tmp however
        // trace-view ends (SIGTERM and SIGKILL run no cleanup).
        let errors: Int32
        do { errors = try Subprocess.anonymousFile() } catch { throw CLIError.data("\(error)") }
        defer { close(errors) }
        // A live session runs as long as it is recorded: no time budget (the child's watchdog
        // ends it when its relay daemon stops answering, ``LiveBudget``).
        let budget = live ? Double.infinity : timeBudget(for: path)
        let childBudget = memoryMB ?? memoryBudgetMB
        let child: Subprocess.Child
        do {
            child = try Subprocess.start(
                selfExecutable(), [command] + (live ? ["--live"] : []) + [path] + (recordTag.map { [$0] } ?? []),
                environment: ["TRANSDUCE_LTTNG": "off", memoryVariable: String(childBudget)],
                errorsTo: .descriptor(errors))
        } catch {
            throw CLIError.data("\(path): \(error)")
        }
        // The watchdog: kills the child at the end of its time budget.
        let finished = Atomic<Bool>(false)
        let killed = Atomic<Bool>(false)
        let pid = child.pid
        started(pid)
        if budget.isFinite {
            DispatchQueue.global().asyncAfter(deadline: .now() + budget) {
                if !finished.load(ordering: .acquiring) {
                    killed.store(true, ordering: .releasing)
                    kill(pid, SIGKILL)
                }
            }
        }
        var notes: [String] = []
        var counts: TraceCounts?
        var events = 0
        do {
            let reader = try TraceFileReader(source: DescriptorSource(descriptor: child.output, closes: true), name: path)
            reader.forEach {
                body($0)
                events += 1
            }
            counts = reader.footer
            notes = reader.notes
        } catch {
            close(child.output)  // nothing came: the child's own words say why
        }
        let status = (try? Subprocess.wait(pid, name: command)) ?? 1
        finished.store(true, ordering: .releasing)
        var hosts: [UInt32: String] = [:]
        var childNotes: [String] = []
        var fatal: String?
        var lossesUnknown = false
        for line in readLines(errors) {
            if line == "losses: unknown" { lossesUnknown = true }
            // What LTTng lost: said, not damage (the counts carry the number).
            if line.hasPrefix("loss: ") { StandardError.line("trace-view: note: \(path): " + line.dropFirst(6)) }
            if line.hasPrefix("note: ") {
                if childNotes.count < 100 { childNotes.append(path + ": " + line.dropFirst(6)) }
            } else if line.hasPrefix("host: ") {
                let parts = line.dropFirst(6).split(separator: " ", maxSplits: 1)
                if parts.count == 2, let pid = UInt32(parts[0]), hosts.count < 65_536 { hosts[pid] = String(parts[1]) }
            } else if line.hasPrefix("error: ") {
                fatal = String(line.dropFirst(7))
            }
        }
        // What the reader of the child's stream noticed (a stream cut short, a damaged record): said
        // too, not dropped.
        childNotes += notes.prefix(100)
        if status == 0 { return (childNotes, counts, hosts, lossesUnknown) }
        let why: String
        if killed.load(ordering: .acquiring) {
            why = "babeltrace2 did not finish within the \(Int(budget)) s budget and was stopped (set \(timeVariable) for more)"
        } else if let fatal {
            why = fatal.hasPrefix(path) ? String(fatal.dropFirst(path.count + 2)) : fatal
        } else if status > 128 {
            why =
                "babeltrace2 failed (signal \(status - 128)): the trace is damaged, or reading it needed more than "
                + "the \(childBudget) MB budget (set \(memoryVariable) for more)"
        } else {
            why = "babeltrace2 failed (status \(status))"
        }
        if events == 0 { throw CLIError.data("\(path): cannot read this \(live ? "live session" : "CTF trace"): \(why)") }
        // A live reader that died mid-stream (killed, or its relay daemon gone) is a failure of
        // the view, whatever it had read (delivered already): the caller says so and exits 65.
        if live { throw CLIError.data("\(path): the live reader stopped after \(events) events: \(why)") }
        // The child stopped early: what it did not read is lost, in unknown number.
        return (childNotes + ["\(path): \(why); what was read before is shown (\(events) events)"], counts, hosts, true)
    }

    /// This program's own executable (the child is this same binary).
    package static func selfExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readLines(_ descriptor: Int32) -> [Substring] {
        // Bounded: a child's notes are few; the rest of a runaway stderr is not read.
        Subprocess.contents(descriptor, limit: 1 << 20).split(separator: "\n")
    }
}
