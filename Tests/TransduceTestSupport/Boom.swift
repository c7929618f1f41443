/// The error the tests' tasks, effects and transducers throw: one type, so that a test can ask
/// whether what came back is the failure it caused (`Equatable`).
package struct Boom: Error, Equatable {
    package init() {}
}
