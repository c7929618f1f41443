// transduce-callgrind: the loops that Benchmarks/callgrind.sh runs under valgrind.
//   transduce-callgrind record N   N ring-buffer records
//   transduce-callgrind send N     N uncontended sends on BaseRuntime, from a detached task
//   transduce-callgrind disabled N the same sends with a disabled trace recorder attached
//   transduce-callgrind traced N   the same sends with a trace recorder feeding its ring buffer
//   transduce-callgrind context N  the traced sends, each under a set TraceContext
//   transduce-callgrind hop N      N calls of an empty method on a plain actor, the same way
//   transduce-callgrind request N  N requests whose effect is a task returning `.response`
//   transduce-callgrind floor N    N bare tasks that resume a continuation the caller waits on
//   transduce-callgrind observable N   N sends on EffectObservable, on the main actor
// The main thread waits on a semaphore instead of running an async main: valgrind 3.19 crashes
// on the sigsuspend that parks the main thread of an async main.
import Dispatch
import Foundation
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first,
    ["record", "send", "disabled", "traced", "context", "hop", "request", "floor", "observable"].contains(mode),
    let n = Int(arguments.dropFirst().first ?? ""), n > 0
else {
    print("usage: transduce-callgrind record|send|disabled|traced|context|hop|request|floor|observable COUNT")
    exit(64)
}
// Every count is of the steady state: until the clock is calibrated (its first 50 ms of reads),
// its reads are clock_gettime's, which under valgrind would be a large part of a short run.
_ = MonotonicClock.awaitTimeStampCounter(within: 5_000_000_000)
if mode == "record" {
    CallgrindTargets.recordLoop(n)
} else if mode == "observable" {
    // The main actor runs on the main thread, which must serve it: Foundation's run loop does
    // (dispatchMain parks the thread in sigsuspend, which valgrind 3.19 crashes on).
    Task { @MainActor in
        await CallgrindTargets.observableLoop(n)
        exit(0)
    }
    while true { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 1)) }
} else {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        switch mode {
        case "disabled": await CallgrindTargets.sendLoop(n, attached: .disabled)
        case "traced": await CallgrindTargets.sendLoop(n, attached: .ring)
        case "context": await CallgrindTargets.contextSendLoop(n)
        case "hop": await CallgrindTargets.hopLoop(n)
        case "request": await CallgrindTargets.requestLoop(n)
        case "floor": await CallgrindTargets.taskFloorLoop(n)
        default: await CallgrindTargets.sendLoop(n)
        }
        done.signal()
    }
    done.wait()
}
