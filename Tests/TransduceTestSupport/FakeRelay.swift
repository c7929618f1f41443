import Foundation
import Synchronization
import TraceTooling
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A relay daemon that misbehaves, on loopback, speaking just enough of the LTTng live protocol
/// (big-endian packed structs: a 16-byte command header, then its payload) to reach the step
/// where it stops behaving.
package final class FakeRelay: Sendable {
    package enum Mode: Sendable, CustomStringConvertible {
        /// Accepts, then never writes nor reads.
        case silent
        /// Answers CONNECT, then nothing.
        case connectOnly
        /// Answers CONNECT; to LIST_SESSIONS it claims 4,294,967,295 sessions and sends none.
        case hugeCount
        /// Answers CONNECT, CREATE_SESSION and LIST_SESSIONS (this many sessions, hostname
        /// `fakehost`); never answers ATTACH_SESSION.
        case neverAttach(Int)
        /// Sends 4 KiB of bytes that mean nothing, then holds the connection.
        case garbage

        package var description: String {
            switch self {
            case .silent: "silent"
            case .connectOnly: "CONNECT only"
            case .hugeCount: "4,294,967,295 sessions"
            case .neverAttach(let n): "\(n) sessions that never attach"
            case .garbage: "garbage"
            }
        }
    }

    package let mode: Mode
    package let port: Int
    private let listener: Int32
    private let state = Mutex<(open: Set<Int32>, peak: Int, accepted: Int, stopped: Bool)>(([], 0, 0, false))

    package init(_ mode: Mode) throws {
        self.mode = mode
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Subprocess.Failure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 256) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw Subprocess.Failure("cannot listen on loopback: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    package var url: String { "net://127.0.0.1:\(port)" }
    package func sessionURL(_ name: String = "s0") -> String { "\(url)/host/fakehost/\(name)" }

    /// The most connections open at once, and all accepted.
    package var connections: (peak: Int, accepted: Int) { state.withLock { ($0.peak, $0.accepted) } }

    /// Closes every connection and stops listening.
    package func stop() {
        let open = state.withLock {
            $0.stopped = true
            return $0.open
        }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let stopped = state.withLock {
                $0.open.insert(fd)
                $0.accepted += 1
                $0.peak = max($0.peak, $0.open.count)
                return $0.stopped
            }
            if stopped {
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in
                serve(fd)
                state.withLock { _ = $0.open.remove(fd) }
                close(fd)
            }
        }
    }

    /// One viewer connection, until it closes.
    private func serve(_ fd: Int32) {
        switch mode {
        case .silent:
            return drain(fd)
        case .garbage:
            var bytes = [UInt8](repeating: 0, count: 4_096)
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            for i in bytes.indices {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[i] = UInt8(truncatingIfNeeded: seed >> 33)
            }
            transmit(fd, bytes)
            return drain(fd)
        default:
            break
        }
        var answering = true
        while let (command, _) = receiveCommand(fd) {
            guard answering else { continue }
            var reply = Bytes()
            switch (command, mode) {
            case (1, _):  // CONNECT: viewer session 1, protocol 2.4, a command connection
                reply.u64(1)
                reply.u32(2)
                reply.u32(4)
                reply.u32(1)
                if case .connectOnly = mode { answering = false }
            case (2, .hugeCount):  // LIST_SESSIONS: a count and nothing after it
                reply.u32(UInt32.max)
                answering = false
            case (2, .neverAttach(let count)):
                reply.u32(UInt32(count))
                for i in 0..<count {
                    reply.u64(UInt64(i + 1))
                    reply.u32(1_000_000)  // live timer
                    reply.u32(0)  // clients
                    reply.u32(1)  // streams
                    reply.text("fakehost", 64)
                    // One name that would retitle and clear a terminal printed raw.
                    reply.text(i == 1 ? "\u{1B}]0;owned\u{7}\u{1B}[2Js1" : "s\(i)", 255)
                }
            case (8, _):  // CREATE_SESSION: OK
                reply.u32(1)
            default:  // ATTACH_SESSION and the rest: never answered
                continue
            }
            transmit(fd, reply.bytes)
        }
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n == 0 || (n < 0 && errno != EINTR) { return }
        }
    }

    /// A command's number and payload, or `nil` when the viewer went away.
    private func receiveCommand(_ fd: Int32) -> (UInt32, [UInt8])? {
        guard let header = receive(fd, 16) else { return nil }
        let size = header[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let command = header[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard size <= 1 << 20, let payload = receive(fd, Int(size)) else { return nil }
        return (command, payload)
    }

    private func receive(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return nil }
        }
        return bytes
    }

    /// Writes `bytes`; a viewer gone is no signal (MSG_NOSIGNAL: SIGPIPE would end the tests).
    private func transmit(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }

    /// Big-endian fields, as the live protocol sends them.
    private struct Bytes {
        var bytes: [UInt8] = []
        mutating func u64(_ v: UInt64) { bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        mutating func u32(_ v: UInt32) { bytes += (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        mutating func text(_ s: String, _ size: Int) {
            let utf8 = Array(s.utf8.prefix(size - 1))
            bytes += utf8 + [UInt8](repeating: 0, count: size - utf8.count)
        }
    }
}
