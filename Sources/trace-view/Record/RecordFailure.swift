import Foundation
import TraceInputs
import TraceTooling
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What went wrong with a recording, told apart after the command ended: LTTng could not write
/// (the disk filled, its consumer or session daemon went away), what it wrote cannot be read,
/// or the command recorded nothing. Each has its own exit status (``ExitStatus``): a full disk
/// is not the command's fault, and "recorded no transduce events" sent users looking at their
/// code.
enum RecordFailure: Equatable {
    case diskFull(available: UInt64)
    case sessionDaemonGone
    case consumerGone
    case unreadable(String)
    case nothingRecorded

    /// What was seen of a recording: the inputs of ``diagnose(_:)``, gathered by `record` with
    /// ``available(at:)``, ``consumerDaemons()`` and ``sessionDaemonAnswers()``.
    struct Observation {
        /// Bytes free to this user on the trace's file system at the end.
        var available: UInt64
        /// Whether stopping the session failed.
        var stopFailed: Bool
        /// Whether a session daemon answered at the end.
        var sessionDaemonAnswers: Bool
        /// The consumer daemons seen once the session started, and how many were still there at
        /// the end.
        var consumersAtStart: Int
        var consumersLeft: Int
        /// Why reading the trace failed, if it did.
        var readError: String?
        var events: Int
        /// Bytes of the trace's data streams (``streamBytes(under:)``): 0 when LTTng wrote no
        /// packet, only metadata or nothing at all.
        var streamBytes: UInt64 = .max
    }

    /// Below this many free bytes the file system counts as full (LTTng writes packets of
    /// 4 KiB and more; a metadata file cut at 0 bytes is what is left then).
    static let fullBelow: UInt64 = 256 << 10

    /// The failure `seen` shows, most fundamental first (a full disk also stops the consumer's
    /// writes, and a dead session daemon its consumers), or `nil` when the recording is whole.
    static func diagnose(_ seen: Observation) -> RecordFailure? {
        if seen.available < fullBelow { return .diskFull(available: seen.available) }
        if seen.stopFailed && !seen.sessionDaemonAnswers { return .sessionDaemonGone }
        if seen.consumersAtStart > 0 && seen.consumersLeft == 0 { return .consumerGone }
        // A session no program wrote to leaves metadata and no packet (or no trace at all),
        // which a reader may refuse: that is still a command that recorded nothing, every time.
        if seen.events == 0 {
            return seen.streamBytes == 0 ? .nothingRecorded : seen.readError.map { .unreadable($0) } ?? .nothingRecorded
        }
        return nil
    }

    var status: ExitStatus {
        switch self {
        case .diskFull: .diskFull
        case .sessionDaemonGone: .sessionDaemonGone
        case .consumerGone: .consumerGone
        case .unreadable: .data
        case .nothingRecorded: .recordedNothing
        }
    }

    /// What to tell the user: what happened, and what became of the trace in `output` (of
    /// `events` events, readable or not).
    func message(command: String, output: String, events: Int, readError: String?) -> String {
        let kept =
            events > 0
            ? "the trace in \(output) holds the \(events) events written before, and stops there"
            : readError.map { "the trace in \(output) cannot be read (\($0))" } ?? "the trace in \(output) holds nothing"
        switch self {
        case .diskFull(let available):
            return "the file system of \(output) filled up while \(command) ran (\(available >> 10) KiB left): LTTng "
                + "could not write the trace; \(kept). Free space, or record to another file system (--output)"
        case .sessionDaemonGone:
            return "LTTng's session daemon (lttng-sessiond) went away while \(command) ran: \(kept)"
        case .consumerGone:
            return "LTTng's consumer daemon (lttng-consumerd), which writes the trace, went away while \(command) ran: \(kept)"
        case .unreadable(let why):
            return "LTTng wrote a trace that cannot be read: \(output): \(why)"
        case .nothingRecorded:
            // `record` says this one as it always has (RecordSessions.recordedNothing).
            return "\(command) recorded no transduce events; \(kept)"
        }
    }

    // MARK: observing

    /// Bytes of the data stream files under the trace directory `path` (its regular files but
    /// `metadata`, the packet indexes in `index/` and `record`'s own note); 0 when there are none or no such
    /// directory. At most 100,000 files are looked at (a trace directory holds a few per CPU).
    static func streamBytes(under path: String) -> UInt64 {
        guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total: UInt64 = 0
        var seen = 0
        while let file = files.nextObject() as? String, seen < 100_000 {
            seen += 1
            let name = (file as NSString).lastPathComponent
            guard name != "metadata", name != TraceInput.recordFile, !file.split(separator: "/").contains("index"),
                let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + file),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            total += (attributes[.size] as? UInt64) ?? 0
        }
        return total
    }

    /// Bytes free to this user on the file system of `path`.
    static func available(at path: String) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return UInt64.max }
        return UInt64(info.f_bavail) &* UInt64(info.f_frsize)
    }

    /// The LTTng consumer daemons of this user in this mount namespace (those that write this
    /// session's trace), by process id.
    static func consumerDaemons() -> [pid_t] {
        #if os(Linux)
            let namespace = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/mnt")) ?? ""
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
            return entries.compactMap { entry -> pid_t? in
                guard let pid = pid_t(entry),
                    let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                    comm.hasPrefix("lttng-consumerd")
                else { return nil }
                var info = stat()
                guard stat("/proc/\(pid)", &info) == 0, info.st_uid == getuid() else { return nil }
                let theirs = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/mnt")) ?? ""
                return theirs == namespace ? pid : nil
            }
        #else
            return []
        #endif
    }

    /// Whether a session daemon answers `lttng list`.
    static func sessionDaemonAnswers() -> Bool {
        guard let lttng = Subprocess.which("lttng"),
            let listing = try? Subprocess.run(lttng, ["list"], output: .capture, timeout: LTTngSession.callTimeout)
        else { return false }
        return listing.status == 0
    }
}
