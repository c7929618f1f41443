#if canImport(SwiftUI)
    import SwiftUI

    /// A SwiftUI host: keeps a main-actor runtime in `@State`, mirrors its state into `state`, and
    /// cancels it when the view goes away. `Env` is captured once; change it with `.id(envID)`.
    ///
    /// Linux CI cannot compile this file; it stays a thin adapter over ``EffectObservable``.
    public struct EffectView<T: Transducer, Content: View>: View
    where
        T.Event: Sendable, T.Env: Sendable, T.Response: Sendable,
        T.Effect == TransducerEffect<T.Event, T.Env, T.Response>
    {
        @Binding private var state: T.State
        @State private var host: EffectObservable<T>?
        private let initialEvent: T.Event?
        private let env: T.Env
        private let content: (T.State, T.Input) -> Content

        public init(
            of: T.Type = T.self, state: Binding<T.State>, initialEvent: T.Event? = nil, initialEnv: T.Env,
            @ViewBuilder content: @escaping (T.State, T.Input) -> Content
        ) {
            _state = state
            self.initialEvent = initialEvent
            self.env = initialEnv
            self.content = content
        }

        public init(
            of: T.Type = T.self, state: Binding<T.State>, initialEvent: T.Event? = nil,
            @ViewBuilder content: @escaping (T.State, T.Input) -> Content
        ) where T.Env == Void {
            self.init(of: of, state: state, initialEvent: initialEvent, initialEnv: (), content: content)
        }

        public var body: some View {
            Group {
                if let host {
                    content(host.state, host.input)
                        .onChange(of: ObjectIdentifier(host)) { _, _ in }
                } else {
                    Color.clear
                }
            }
            .task {
                if host == nil {
                    host = EffectObservable(of: T.self, initialState: state, env: env, initialEvent: initialEvent)
                }
                guard let host else { return }
                for await value in Observations({ host.state }) { state = value }
            }
            .onDisappear { host?.cancel() }
        }
    }
#endif
