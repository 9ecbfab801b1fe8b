import Hummingbird

/// Builds the emulator's router: every Auth0 path it serves, plus `/__emulator/…` when controls are on.
enum EmulatorRouter {
    static func build(core: EmulatorCore) -> RouterResponder<EmulatorRequestContext> {
        let router = Router(context: EmulatorRequestContext.self)
        DiscoveryEndpoints(core: core).register(on: router)
        AuthorizeEndpoint(core: core).register(on: router)
        PushedAuthorizationEndpoint(core: core).register(on: router)
        TokenEndpoint(core: core).register(on: router)
        DeviceEndpoints(core: core).register(on: router)
        BackchannelAuthenticationEndpoint(core: core).register(on: router)
        UserInfoEndpoint(core: core).register(on: router)
        RevokeEndpoint(core: core).register(on: router)
        EndSessionEndpoint(core: core).register(on: router)
        ManagementEndpoints(core: core).register(on: router)
        if core.configuration.testControlsEnabled {
            ControlEndpoints(core: core).register(on: router)
        }
        return router.buildResponder()
    }
}
