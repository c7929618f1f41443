import CTraceRing
import TraceInputs
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reading child's side of ``CTFChild`` (`trace-view __read-ctf`): it runs here, beside the
/// live session's budget and listing it serves.
extension CTFChild {
    // MARK: the child

    /// The child's whole life: read `path`, stream it to standard output, exit.
    static func run(_ arguments: [String]) -> Never {
        // `--list URL`: the sessions a relay daemon offers (``LiveListing``).
        let listing = arguments.first == "--list"
        // `--live URL [TAG]`: an LTTng live session, streamed as it arrives.
        let live = arguments.first == "--live"
        let arguments = live || listing ? Array(arguments.dropFirst()) : arguments
        guard arguments.count == 1 || arguments.count == 2 else {
            StandardError.line("error: usage: trace-view \(command) [--live|--list] DIR|URL [RECORD-TAG]")
            exit(64)
        }
        // Ends with trace-view, even when trace-view is killed outright.
        _ = clttng_die_with_parent()
        let limit = rlim_t(memoryBudgetMB) << 20
        var budget = rlimit(rlim_cur: limit, rlim_max: limit)
        _ = setrlimit(Int32(RLIMIT_DATA.rawValue), &budget)
        if listing { LiveListing.runChild(url: arguments[0]) }
        // A relay daemon that stops answering would hold babeltrace2 on its socket forever.
        if live { LiveBudget.startWatchdog(url: arguments[0]) }
        #if os(Linux)
            // A pipe of 1 MiB (F_SETPIPE_SZ) instead of 64 KiB: the two processes hand over the
            // trace in fewer, larger turns (the switches between them were a sixth of a read).
            // Where the system allows less, the pipe stays as it is.
            _ = fcntl(STDOUT_FILENO, 1031, Int32(1 << 20))
        #endif
        var encoder = TraceFileEncoder()
        var failed = false
        let sink: ([UInt8]) -> Void = { bytes in
            if !failed { failed = !bytes.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) } }
        }
        var count: UInt64 = 0
        // The events' texts, each numbered once by its bytes: the numbers are the file's string
        // ids (no `String` is made per event, and no text hashed twice).
        let texts = CTFTextTable()
        do {
            let tag = arguments.count == 2 ? arguments[1] : nil
            let result: CTFTraceReader.Result
            if live {
                // While no data comes, what was read so far goes to the parent at once.
                result = try CTFTraceReader.readLive(
                    url: arguments[0], recordTag: tag, texts: texts,
                    idle: {
                        LiveBudget.progress()
                        encoder.flush(into: sink)
                        return failed  // the parent is gone
                    }
                ) { event, label, label2 in
                    encoder.append(event, label: label, label2: label2, text: texts.text, into: sink)
                    count += 1
                    if count & 255 == 0 { LiveBudget.progress() }
                }
            } else {
                result = try CTFTraceReader.read(path: arguments[0], recordTag: tag, texts: texts) { event, label, label2 in
                    encoder.append(event, label: label, label2: label2, text: texts.text, into: sink)
                    count += 1
                }
            }
            encoder.finish(counts: result.counts(events: count), into: sink)
            for note in result.lossNotes { StandardError.line("loss: \(note)") }
            for note in result.notes { StandardError.line("note: \(note)") }
            if result.uncountedDiscards > 0 || result.discardedPackets > 0 { StandardError.line("losses: unknown") }
            for (pid, host) in result.hosts.sorted(by: { $0.key < $1.key }) { StandardError.line("host: \(pid) \(host)") }
            exit(0)
        } catch {
            StandardError.line("error: \(error)")
            exit(65)
        }
    }
}
