/// What a test store sees of a runtime, as it happens: each transduce step with its event, each
/// managed task as it starts and ends, and a nudge whenever the runtime may have gone quiet.
///
/// Package-internal: `TransduceTesting` builds its `TestStore` on it. A host is given one at
/// creation (``BaseRuntime``'s package initializer) and never changes it; without one, each hook
/// costs the runtime a load and a branch.
///
/// The calls come on the threads that do the work (the host's isolation for steps and task
/// starts, a task's thread for its end), sometimes while the runtime holds its control lock:
/// they must not block and must not call back into the runtime.
@usableFromInline
package protocol RuntimeObserver<Event>: AnyObject, Sendable {
    associatedtype Event

    /// `event` was just transduced, on the host's isolation, before its effect runs; `state` is
    /// the state this step committed (the host's `State`, read through its hooks as a
    /// state-capturing instrument reads it).
    func transduced(_ event: Event, state: Any, _ step: ObservedStep)
    /// A managed task started, during the effect of the step reported last.
    func taskStarted(_ task: ObservedTask)
    /// The body of managed task `instance` ended (its result already handed to the runtime).
    /// The runtime may be quiet now, as after ``mayBeQuiet()``.
    func taskEnded(_ instance: UInt64)
    /// Something ended that may have left the runtime quiet (``RuntimeCore/isQuiet``): a drain or
    /// an inline cycle let go of the gate, or the runtime stopped.
    func mayBeQuiet()
}

/// One transduce step, as a ``RuntimeObserver`` sees it.
@usableFromInline
package struct ObservedStep: Sendable, Hashable {
    /// The cycle the step belongs to.
    @usableFromInline
    package var cycle: UInt64
    /// The step's index in its cycle: 0 for the admitted event, then each chained one.
    @usableFromInline
    package var step: Int
    /// How the cycle's event was admitted.
    @usableFromInline
    package var style: DispatchKind
    /// The managed task that dispatched the cycle's event or whose result it is (its instance);
    /// 0 when it came from outside the runtime's tasks.
    @usableFromInline
    package var origin: UInt64

    @inlinable
    package init(cycle: UInt64, step: Int, style: DispatchKind, origin: UInt64) {
        self.cycle = cycle
        self.step = step
        self.style = style
        self.origin = origin
    }
}

/// A managed task as it starts, as a ``RuntimeObserver`` sees it.
@usableFromInline
package struct ObservedTask: Sendable {
    /// The task's instance, unique in its runtime.
    @usableFromInline
    package var instance: UInt64
    /// Its id, when it was given one.
    @usableFromInline
    package var id: TaskIdentifier?
    /// The cycle whose effect started it.
    @usableFromInline
    package var cycle: UInt64
    /// Where the effect that started it was written (`.task`'s caller).
    @usableFromInline
    package var fileID: StaticString
    /// Its line.
    @usableFromInline
    package var line: UInt

    @inlinable
    package init(instance: UInt64, id: TaskIdentifier?, cycle: UInt64, fileID: StaticString, line: UInt) {
        self.instance = instance
        self.id = id
        self.cycle = cycle
        self.fileID = fileID
        self.line = line
    }
}
