/// The kinds of onboarding friction the detectors recognise.
public enum FrictionType: String, Sendable, CaseIterable, Codable {
    case keyboardCoversField = "keyboard_covers_field"
    case keyboardCoversAction = "keyboard_covers_action"
    case keyboardCoversCaret = "keyboard_covers_caret"
    case networkErrorNoFeedback = "network_error_no_feedback"
    case permissionDeniedNoGuidance = "permission_denied_no_guidance"
    case validationErrorSilent = "validation_error_silent"
    case multiTouchBadState = "multi_touch_bad_state"
}

/// One friction episode found in a session: the user met `type` on `screen` at `time`.
public struct FrictionEpisode: Sendable, Equatable {
    public var screen: String
    public var type: FrictionType
    /// Seconds since the Unix epoch of the event that revealed the episode.
    public var time: Double
    /// 0...1: for keyboard occlusions the covered share of the target, else 1.
    public var severity: Double
    public var inputMode: String?
    /// `portrait` or `landscape` when known.
    public var orientation: String?

    public init(screen: String, type: FrictionType, time: Double, severity: Double = 1,
                inputMode: String? = nil, orientation: String? = nil) {
        self.screen = screen
        self.type = type
        self.time = time
        self.severity = severity
        self.inputMode = inputMode
        self.orientation = orientation
    }
}
