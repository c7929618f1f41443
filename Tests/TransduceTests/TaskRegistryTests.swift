import Testing

@testable import Transduce

/// The task registry as a plain value: policies, waiter transfer, joins, ends and cancellation.
@Suite struct TaskRegistryTests {
    typealias Registry = TaskRegistry<String, Int>

    /// Spawns and registers, as the shell does; returns the instance, or the joined one.
    @discardableResult
    func spawn(
        _ registry: inout Registry, _ id: TaskIdentifier?, policy: TaskPolicyKind = .switchToLatest,
        waiters: [String] = []
    ) -> (instance: UInt64, joined: Bool, carried: [String], replaced: UInt64?) {
        switch registry.spawn(id: id, policy: policy, waiters: waiters) {
        case .joined(let instance):
            return (instance, true, [], nil)
        case .start(let instance, let key, let carried, let replaced):
            registry.started(key, .init(instance: instance, handle: nil, waiters: carried, startedAt: 0))
            return (instance, false, carried, replaced?.instance)
        }
    }

    @Test func switchToLatestReplacesAndTakesOverTheWaiters() {
        var registry = Registry()
        let first = spawn(&registry, "load", waiters: ["a"])
        let second = spawn(&registry, "load", waiters: ["b"])
        #expect(first.instance == 1 && second.instance == 2)
        #expect(second.replaced == 1)
        #expect(second.carried == ["a", "b"])
        #expect(registry.count == 1)
        // The replaced instance's late end is discarded; the new one's is its own.
        #expect(registry.finish(.named("load"), instance: 1) == nil)
        #expect(registry.finish(.named("load"), instance: 2)?.waiters == ["a", "b"])
        #expect(registry.count == 0)
    }

    @Test func shareableJoinsTheRunningInstance() {
        var registry = Registry()
        spawn(&registry, "fetch", policy: .shareable, waiters: ["a"])
        let join = spawn(&registry, "fetch", policy: .shareable, waiters: ["b"])
        #expect(join.joined && join.instance == 1)
        #expect(registry.entries[.named("fetch")]?.waiters == ["a", "b"])
        // Once it ended, the next request starts fresh work.
        _ = registry.finish(.named("fetch"), instance: 1)
        let fresh = spawn(&registry, "fetch", policy: .shareable, waiters: ["c"])
        #expect(!fresh.joined && fresh.instance == 2 && fresh.carried == ["c"])
    }

    @Test func aUniqueRequestOverridesShareable() {
        var registry = Registry()
        spawn(&registry, "fetch", policy: .shareable, waiters: ["a"])
        let unique = spawn(&registry, "fetch", policy: TaskPolicyKind(.shareable, inUniqueRequest: true), waiters: ["b"])
        #expect(!unique.joined && unique.replaced == 1)
        #expect(unique.carried == ["a", "b"])
    }

    @Test func anonymousTasksNeverMeet() {
        var registry = Registry()
        let a = spawn(&registry, nil, waiters: ["a"])
        let b = spawn(&registry, nil, waiters: ["b"])
        #expect(a.replaced == nil && b.replaced == nil)
        #expect(registry.count == 2)
        #expect(registry.finish(.anonymous(a.instance), instance: a.instance)?.waiters == ["a"])
        #expect(registry.count == 1)
    }

    @Test func cancelRemovesAndALateEndIsDiscarded() {
        var registry = Registry()
        spawn(&registry, "tick", waiters: ["a"])
        #expect(registry.cancel(.named("tick"))?.waiters == ["a"])
        #expect(registry.cancel(.named("tick")) == nil)
        #expect(registry.finish(.named("tick"), instance: 1) == nil)
    }

    @Test func cancelAllTakesEveryInstanceOldestFirst() {
        var registry = Registry()
        spawn(&registry, "b")
        spawn(&registry, nil)
        spawn(&registry, "a")
        #expect(registry.cancelAll().map(\.instance) == [1, 2, 3])
        #expect(registry.count == 0)
        // Instance ids are never reused.
        #expect(spawn(&registry, "a").instance == 4)
    }
}
