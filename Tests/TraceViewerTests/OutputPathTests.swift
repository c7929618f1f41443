import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// Writers respect what is at the path: a symbolic link is followed (it stays a link), a FIFO,
/// a device and `/dev/stdout` are written in place, never replaced by a regular file (run as
/// root, `--output /dev/null` once turned the machine's `/dev/null` into one).
@Suite(.serialized) struct OutputPathTests {
    let demo = fixtures + "/demo.jsonl"

    func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test func aSymbolicLinkStaysALinkAndItsTargetGetsTheTrace() async throws {
        let dir = TemporaryDirectory()
        let expected = try await traceView(["export", "--format", "jsonl", demo]).out
        // A link to a file, and a dangling one (relative), for export --output and for dumps.
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir.file("target.jsonl")))
        #expect(symlink(dir.file("target.jsonl"), dir.file("link.jsonl")) == 0)
        #expect(symlink("absent.jsonl", dir.file("dangling.jsonl")) == 0)
        for (link, target) in [("link.jsonl", "target.jsonl"), ("dangling.jsonl", "absent.jsonl")] {
            let (status, _, err) = try await traceView(["export", "--format", "jsonl", "--output", dir.file(link), demo])
            #expect(status == 0, "\(err)")
            #expect(kind(dir.file(link)) == S_IFLNK, "\(link) is no longer a link")
            #expect(try String(contentsOfFile: dir.file(target), encoding: .utf8) == expected)
        }
        let trace = JSONLinesReader(bytes: Array(expected.utf8)).readAll()
        try TraceFileWriter.write(trace, to: dir.file("link.jsonl"), format: .jsonLines)
        #expect(kind(dir.file("link.jsonl")) == S_IFLNK)
        #expect(
            JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("target.jsonl"))))).readAll()
                .events == trace.events)
        // A directory is refused, and left as it was.
        let refused = try await traceView(["export", "--format", "jsonl", "--output", dir.path, demo])
        #expect(refused.status == 65 && refused.err.contains("is a directory"), "\(refused.err)")
        #expect(kind(dir.path) == S_IFDIR)
    }

    @Test func aFIFOsReaderGetsTheExport() async throws {
        let dir = TemporaryDirectory()
        let fifo = dir.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Its reader first: `cat` blocks until a writer opens the FIFO.
        let reader = try Subprocess.start("/bin/cat", [fifo], errors: dir.file("cat.err"))
        let (status, _, err) = try await traceView(["export", "--format", "jsonl", "--output", fifo, demo])
        #expect(status == 0, "\(err)")
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(reader.output, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        close(reader.output)
        #expect(try Subprocess.wait(reader.pid, timeout: 30, name: "cat") == 0)
        #expect(String(decoding: bytes, as: UTF8.self) == (try await traceView(["export", "--format", "jsonl", demo])).out)
        #expect(kind(fifo) == S_IFIFO)
    }

    @Test func devStdoutIsStandardOutput() async throws {
        let (status, out, err) = try await traceView(["export", "--format", "jsonl", "--output", "/dev/stdout", demo])
        #expect(status == 0, "\(err)")
        #expect(out == (try await traceView(["export", "--format", "jsonl", demo])).out)
    }

    /// A character device of its own (the machine's own `/dev/null` is never a target): stays one.
    @Test func aDeviceIsWrittenInPlace() async throws {
        let dir = TemporaryDirectory()
        let device = dir.file("null")
        guard mknod(device, S_IFCHR | 0o666, makedev(1, 3)) == 0 else {
            print("OutputPathTests: no device test (mknod: \(String(cString: strerror(errno))); it needs root)")
            return
        }
        let (status, _, err) = try await traceView(["export", "--format", "chrome", "--output", device, demo])
        if status != 0, err.contains("Permission denied") {
            print("OutputPathTests: the temporary directory's file system does not open devices (nodev)")
            return
        }
        #expect(status == 0, "\(err)")
        #expect(kind(device) == S_IFCHR, "the device was replaced")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// The very case of the report, `--output /dev/null` as root, where it cannot harm the
    /// machine: in a private mount namespace whose `/dev` is a tmpfs of its own (`unshare`), for
    /// `export --output` and for the recorder's dumps at exit and on termination. `/dev/null`
    /// stays a character device each time. Skipped, saying why, where namespaces cannot be made
    /// (not root, or no `unshare`).
    @Test func devNullStaysADeviceInAPrivateNamespace() throws {
        guard getuid() == 0, let unshare = Subprocess.which("unshare") else {
            print("OutputPathTests: no namespace test (it needs root and unshare)")
            return
        }
        let probe = try Subprocess.run(
            unshare, ["--mount", "--propagation", "private", "--fork", "true"], output: .capture, timeout: 30)
        guard probe.status == 0 else {
            print("OutputPathTests: no namespace test (unshare --mount: \(probe.output))")
            return
        }
        let binary = try #require(builtProduct("trace-view"))
        let example = try #require(builtProduct("TracedExample"))
        // Each step prints the kind of /dev/null after it; the machine's own is never touched.
        let script = """
            mount -t tmpfs -o size=1m,mode=755 tmpfs /dev && mknod -m 666 /dev/null c 1 3 || exit 90
            kind() { stat -c %F /dev/null; }
            "$1" export --format chrome --output /dev/null "$3" >/dev/null; echo "export $? $(kind)"
            TRANSDUCE_TRACE=/dev/null TRANSDUCE_LTTNG=off "$2" >/dev/null; echo "exit-dump $? $(kind)"
            TRANSDUCE_TRACE=/dev/null TRANSDUCE_LTTNG=off SWIFT_BACKTRACE=enable=no "$2" --end-with TERM >/dev/null
            echo "signal-dump $? $(kind)"
            """
        let run = try Subprocess.run(
            unshare, ["--mount", "--propagation", "private", "--fork", "/bin/sh", "-c", script, "sh", binary, example, demo],
            output: .capture, timeout: 120)
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("export 0 character special file"), "\(run.output)")
        #expect(lines.contains("exit-dump 0 character special file"), "\(run.output)")
        #expect(lines.contains("signal-dump \(128 + SIGTERM) character special file"), "\(run.output)")
        #expect(kind("/dev/null") == S_IFCHR)
    }
}

/// `makedev` of the C library (a macro there).
private func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
    dev_t(major & 0xfff) << 8 | dev_t(minor & 0xff) | dev_t(major & ~0xfff) << 32 | dev_t(minor & ~0xff) << 12
}
