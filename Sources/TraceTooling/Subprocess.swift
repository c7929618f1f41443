import Transduce

#if canImport(Glibc)
    import Glibc
    /// posix_spawn's file actions and attributes: structs in Glibc.
    typealias SpawnFileActions = posix_spawn_file_actions_t
    typealias SpawnAttributes = posix_spawnattr_t
    private func makeSpawnFileActions() -> SpawnFileActions { posix_spawn_file_actions_t() }
    private func makeSpawnAttributes() -> SpawnAttributes { posix_spawnattr_t() }
#elseif canImport(Darwin)
    import Darwin
    /// posix_spawn's file actions and attributes: opaque pointers on Darwin, set by their `init`.
    typealias SpawnFileActions = posix_spawn_file_actions_t?
    typealias SpawnAttributes = posix_spawnattr_t?
    private func makeSpawnFileActions() -> SpawnFileActions { nil }
    private func makeSpawnAttributes() -> SpawnAttributes { nil }
#endif

/// Runs a program as a child process for the toolkit's own needs (lttng-tools, a command under
/// `trace-view record`, the benchmark's and tests' children).
///
/// Why not Foundation's `Process`: on Linux it spawns the child with the signal mask of the
/// calling thread, and the threads of a Swift program (Dispatch's and the concurrency pool's)
/// block nearly every signal. A child started so never sees SIGINT or SIGTERM, and
/// `lttng-sessiond --daemonize` waits forever for the SIGUSR1 its daemon sends when ready. Here
/// the child starts with an empty signal mask and every signal at its default action.
package enum Subprocess {
    /// Held while a pipe is made close-on-exec and while a child is spawned; counts the spawns
    /// (a `Lock` never guards an empty value, see ``Lock``).
    private static let spawnLock = Lock(UInt64(0))

    /// Where the child's standard output and error go.
    package enum Output: Sendable {
        /// This process's own (for a command the user watches).
        case inherit
        /// `/dev/null`.
        case discard
        /// Collected, both streams together, into ``Result/output``.
        case capture
        /// Collected apart: standard output into ``Result/output``, standard error into
        /// ``Result/errors``.
        case captureSeparately
        /// Both streams appended to the file at this path (made if missing), standard input from
        /// `/dev/null` (a command whose terminal another program draws on).
        case file(String)
    }

    package struct Result: Sendable {
        /// The exit status, or 128 + the signal number when a signal ended the child.
        package var status: Int32
        package var output: String
        /// Standard error, with ``Output/captureSeparately`` ("" otherwise).
        package var errors: String = ""
        package var pid: pid_t
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// The first executable named `tool` on `PATH`.
    package static func which(_ tool: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and waits for it.
    ///
    /// - Parameters:
    ///   - environment: entries added to (or replacing those of) this process's environment.
    ///   - output: where standard output and error go; with anything but `.inherit` the child's
    ///     standard input is `/dev/null`.
    ///   - timeout: seconds after which the child is killed and ``Failure`` thrown; `nil` waits
    ///     as long as it runs.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        output: Output = .inherit, timeout: Double? = nil
    ) throws -> Result {
        var captureFile: Int32?
        var errorFile: Int32?
        var actions = makeSpawnFileActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch output {
        case .inherit:
            break
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .capture:
            let file = try anonymousFile()
            captureFile = file
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, file, 1)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .captureSeparately:
            let file = try anonymousFile()
            captureFile = file
            let errors: Int32
            do { errors = try anonymousFile() } catch {
                close(file)
                throw error
            }
            errorFile = errors
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, file, 1)
            posix_spawn_file_actions_adddup2(&actions, errors, 2)
        case .file(let path):
            appendOutput(to: path, &actions)
        }
        defer {
            if let captureFile { close(captureFile) }
            if let errorFile { close(errorFile) }
        }
        let pid = try launch(executable, arguments, environment: environment, actions: &actions)
        let status = try wait(for: pid, timeout: timeout, name: executable)
        var result = Result(status: status, output: captureFile.map { contents($0) } ?? "", pid: pid)
        result.errors = errorFile.map { contents($0) } ?? ""
        return result
    }

    /// A new empty file under /tmp that has no name (unlinked as soon as it is made), open for
    /// reading and writing and closed on exec: a child writes into it through a descriptor
    /// (`dup2`), and nothing is left behind however this process ends, SIGKILL included.
    package static func anonymousFile() throws -> Int32 {
        var template = Array("/tmp/transduce-subprocess-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure("cannot create a temporary file: \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// The text in the file open at `descriptor`, from its start, at most `limit` bytes ("" when
    /// it cannot be read).
    package static func contents(_ descriptor: Int32, limit: Int = Int.max) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while bytes.count < limit {
            let n = pread(descriptor, &chunk, min(chunk.count, limit - bytes.count), offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[0..<n]
            offset += off_t(n)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A child started by ``start(_:_:environment:errors:input:)``, whose standard output is a
    /// pipe.
    package struct Child: Sendable {
        package var pid: pid_t
        /// The read end of the child's standard output; the caller closes it.
        package var output: Int32
        /// The write end of the child's standard input, when asked for; closing it is the
        /// child's end of input.
        package var input: Int32?
    }

    /// Starts `executable` with standard output into a pipe (read it from ``Child/output``),
    /// standard error into the file `errors`, and standard input from `/dev/null` or, with
    /// `input`, from a pipe (``Child/input``); wait for it with ``wait(_:timeout:name:)``.
    ///
    /// Both pipes are close-on-exec in this process, so no other child started meanwhile holds
    /// them open (a child that inherited another's input pipe would keep it from ever ending).
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], errors: String,
        input: Bool = false
    ) throws -> Child {
        try start(executable, arguments, environment: environment, errorsTo: .path(errors), input: input)
    }

    /// Where a started child's standard error goes.
    package enum ErrorTarget {
        /// The file at this path (made or truncated).
        case path(String)
        /// This open descriptor (an ``anonymousFile()``, say: nothing left behind).
        case descriptor(Int32)
    }

    /// ``start(_:_:environment:errors:input:)`` with standard error to `target`.
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], errorsTo target: ErrorTarget,
        input: Bool = false
    ) throws -> Child {
        let output = try makePipe()
        let stdin = input ? try makePipe() : nil
        var actions = makeSpawnFileActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        switch target {
        case .path(let errors): posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .descriptor(let errors): posix_spawn_file_actions_adddup2(&actions, errors, 2)
        }
        defer {
            close(output.write)
            if let stdin { close(stdin.read) }
        }
        do {
            let pid = try launch(executable, arguments, environment: environment, actions: &actions)
            return Child(pid: pid, output: output.read, input: stdin?.write)
        } catch {
            close(output.read)
            if let stdin { close(stdin.write) }
            throw error
        }
    }

    /// Starts `executable` with its standard input from a pipe, written through the returned
    /// `input` (close-on-exec in this process; closing it is the child's end of input), and its
    /// output and errors this process's: a pager, say. Wait for it with ``wait(_:timeout:name:)``.
    package static func startFeeding(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (pid: pid_t, input: Int32) {
        let input = try makePipe()
        var actions = makeSpawnFileActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        defer { close(input.read) }
        do {
            return (try launch(executable, arguments, environment: environment, actions: &actions), input.write)
        } catch {
            close(input.write)
            throw error
        }
    }

    /// A pipe whose both ends are close-on-exec in this process.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        // pipe, then close-on-exec, with no spawn of this module in between (Glibc's module has
        // no pipe2).
        let made = spawnLock.withLock { _ -> Bool in
            guard pipe(&fds) == 0 else { return false }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return true
        }
        guard made else { throw Failure("cannot create a pipe: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }

    /// Starts `executable` in the background with its input from `/dev/null` and its output
    /// discarded, not waited for (a watcher that outlives this call; it is reaped by init if this
    /// process ends first).
    package static func startWatcher(_ executable: String, _ arguments: [String]) throws -> pid_t {
        var actions = makeSpawnFileActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        return try launch(executable, arguments, environment: [:], actions: &actions)
    }

    /// Starts `executable` with its output to this process's (`.inherit`) or appended to a file
    /// (`.file`), not waited for: wait for it with ``wait(_:timeout:name:)`` (for a child the
    /// caller may have to stop, which ``run(_:_:environment:output:timeout:)`` cannot).
    package static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], output: Output
    ) throws -> pid_t {
        var actions = makeSpawnFileActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch output {
        case .inherit: break
        case .file(let path):
            appendOutput(to: path, &actions)
        case .discard, .capture, .captureSeparately:
            preconditionFailure("spawn keeps no captured output: use run")
        }
        return try launch(executable, arguments, environment: environment, actions: &actions)
    }

    /// Input from `/dev/null`, both output streams appended to `path`.
    private static func appendOutput(to path: String, _ actions: inout SpawnFileActions) {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }

    /// Waits for a child of ``start(_:_:environment:errors:)``: its status as ``Result/status``.
    package static func wait(_ pid: pid_t, timeout: Double? = nil, name: String) throws -> Int32 {
        try wait(for: pid, timeout: timeout, name: name)
    }

    private static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String],
        actions: inout SpawnFileActions
    ) throws -> pid_t {
        var attributes = makeSpawnAttributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var merged: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        merged.merge(environment) { $1 }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = spawnLock.withLock { spawns -> Int32 in
            spawns &+= 1
            return posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard spawned == 0 else { throw Failure("cannot run \(executable): \(String(cString: strerror(spawned)))") }
        return pid
    }

    private static func wait(for pid: pid_t, timeout: Double?, name: String) throws -> Int32 {
        var raw: Int32 = 0
        if let timeout {
            let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
            var pause: UInt32 = 1_000
            while true {
                let r = waitpid(pid, &raw, WNOHANG)
                if r == pid { break }
                if r < 0 && errno != EINTR { throw Failure("waiting for \(name): \(String(cString: strerror(errno)))") }
                if MonotonicClock.now() >= deadline {
                    kill(pid, SIGKILL)
                    while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                    throw Failure("\(name) did not finish within \(Int(timeout)) s and was killed")
                }
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        } else {
            while waitpid(pid, &raw, 0) < 0 {
                guard errno == EINTR else { throw Failure("waiting for \(name): \(String(cString: strerror(errno)))") }
            }
        }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }
}
