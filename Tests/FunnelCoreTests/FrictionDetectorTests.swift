import FunnelCore
import Testing

private func event(_ type: String, screen: String = "profile", at time: Double, feedback: Bool? = nil,
                   guidance: Bool? = nil, message: Bool? = nil, badState: Bool? = nil) -> FrictionEvent {
    FrictionEvent(time: time, screen: screen, type: type, orientation: "portrait", feedbackShown: feedback,
                  guidanceShown: guidance, messageShown: message, badState: badState, inputMode: "en-US")
}

private func types(_ events: [FrictionEvent]) -> [FrictionType] {
    FrictionDetector().episodes(in: events).map(\.type)
}

@Suite("Friction: detectors")
struct FrictionDetectorTests {
    @Test("a network error without feedback is an episode; with feedback or unknown it is not")
    func networkErrorWithoutFeedback() {
        #expect(types([event("network_error", at: 1, feedback: false)]) == [.networkErrorNoFeedback])
        #expect(types([event("network_error", at: 1, feedback: true)]).isEmpty)
        #expect(types([event("network_error", at: 1)]).isEmpty)
    }

    @Test("a denied permission without guidance and no progress after it is an episode")
    func permissionDeniedWithoutGuidance() {
        let denied = event("permission_denied", screen: "permissions", at: 1, guidance: false)
        #expect(types([denied, event("rotation", screen: "permissions", at: 2)]) == [.permissionDeniedNoGuidance])
        #expect(types([event("permission_denied", screen: "permissions", at: 1, guidance: true)]).isEmpty)
    }

    @Test("a denied permission followed by progress on that screen is no episode")
    func permissionDeniedThenProgress() {
        let denied = event("permission_denied", screen: "permissions", at: 1, guidance: false)
        #expect(types([denied, event("keyboard", screen: "permissions", at: 2)]).isEmpty)
        #expect(types([denied, event("keyboard", screen: "profile", at: 2)]) == [.permissionDeniedNoGuidance],
                "activity on another screen is not progress on this one")
    }

    @Test("a silently refused value is an episode; one with a message is not")
    func silentValidation() {
        #expect(types([event("validation_error", at: 1, message: false)]) == [.validationErrorSilent])
        #expect(types([event("validation_error", at: 1, message: true)]).isEmpty)
    }

    @Test("simultaneous presses count only when they left a bad state")
    func multiTouchBadState() {
        #expect(types([event("multi_touch", at: 1, badState: true)]) == [.multiTouchBadState])
        #expect(types([event("multi_touch", at: 1, badState: false)]).isEmpty)
    }

    @Test("episodes carry screen, input mode and orientation, in time order")
    func episodesCarryContext() {
        let episodes = FrictionDetector().episodes(in: [
            event("multi_touch", screen: "welcome", at: 2, badState: true),
            event("network_error", screen: "welcome", at: 1, feedback: false),
        ].sorted { $0.time < $1.time })
        #expect(episodes.map(\.type) == [.networkErrorNoFeedback, .multiTouchBadState])
        #expect(episodes.allSatisfy { $0.screen == "welcome" && $0.inputMode == "en-US" && $0.orientation == "portrait" })
    }
}
