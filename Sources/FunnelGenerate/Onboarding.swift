/// The planted onboarding flow: screens, their drop-off, the friction planted on three of them and
/// the harmless telemetry noise everywhere else.
enum Onboarding {
    static let screens = ["welcome", "signup", "permissions", "profile"]
    static let completeStep = "onboarding_complete"
    /// Drop-off at each screen for users who hit no planted friction there.
    static let baseDropoff = [0.08, 0.12, 0.06, 0.07]

    static let signupCoveredDropoff = 0.55
    static let permissionDeniedShare = 0.15
    static let permissionDeniedDropoff = 0.45
    static let profileNetworkErrorShare = 0.10
    static let profileNetworkErrorDropoff = 0.50

    /// Share of phone sessions in landscape; tablets are held either way.
    static let phoneLandscapeShare = 0.25
    static let tabletLandscapeShare = 0.5
    static let rotationShare = 0.05
    static let inputModes: [(name: String, weight: Double)] = [
        ("en-US", 0.70), ("zh-Hans-pinyin", 0.18), ("de-DE", 0.07), ("ja-JP", 0.05),
    ]
    static let zhIndex = 1
    static let phoneHardwareKeyboardShare = 0.03
    static let tabletHardwareKeyboardShare = 0.25
    static let tabletUndockedShare = 0.25

    /// The unplanted noise, per screen: share of users who see it (no effect on drop-off).
    static let welcomeNetworkErrorShare = 0.06
    static let welcomeMultiTouchShare = 0.03
    static let signupValidationShare = 0.10
    static let signupNetworkErrorShare = 0.05
    static let profileValidationShare = 0.06
    static let profilePhotosDeniedShare = 0.08

    /// Expected onboarding completion among users who open the app, from the planted values
    /// (the signup hit share estimated from the device, keyboard and orientation mix).
    static var plannedCompletion: Double { completionAfter(screen: -1) }

    /// Expected share of users past `screen` who complete the remaining screens.
    static func completionAfter(screen: Int) -> Double {
        let phoneShare = PlantedModel.iosShare * (1 - Device.tabletShareOfIOS) + (1 - PlantedModel.iosShare)
        let zhShare = inputModes[zhIndex].weight
        let signupHit = phoneShare * zhShare * phoneLandscapeShare * (1 - phoneHardwareKeyboardShare)
        let drop = [
            baseDropoff[0],
            baseDropoff[1] + signupHit * (signupCoveredDropoff - baseDropoff[1]),
            baseDropoff[2] + permissionDeniedShare * (permissionDeniedDropoff - baseDropoff[2]),
            baseDropoff[3] + profileNetworkErrorShare * (profileNetworkErrorDropoff - baseDropoff[3]),
        ]
        return drop.dropFirst(screen + 1).reduce(1) { $0 * (1 - $1) }
    }

    /// Telemetry signals tracked for truth.json: the three planted frictions first, then noise.
    enum Signal: Int, CaseIterable {
        case signupKeyboardCoversAction
        case permissionsDeniedWithoutGuidance
        case profileNetworkErrorWithoutFeedback
        case welcomeNetworkErrorWithFeedback
        case welcomeMultiTouch
        case welcomeRotation
        case signupValidationErrorWithMessage
        case signupNetworkErrorWithFeedback
        case signupRotation
        case permissionsRotation
        case profileKeyboardNotCovering
        case profileValidationErrorWithMessage
        case profilePermissionDeniedWithGuidance
        case profileRotation

        var screen: Int {
            switch self {
            case .welcomeNetworkErrorWithFeedback, .welcomeMultiTouch, .welcomeRotation: 0
            case .signupKeyboardCoversAction, .signupValidationErrorWithMessage, .signupNetworkErrorWithFeedback,
                 .signupRotation: 1
            case .permissionsDeniedWithoutGuidance, .permissionsRotation: 2
            case .profileNetworkErrorWithoutFeedback, .profileKeyboardNotCovering, .profileValidationErrorWithMessage,
                 .profilePermissionDeniedWithGuidance, .profileRotation: 3
            }
        }

        var isPlanted: Bool { rawValue < 3 }

        /// The `ux` type the signal is seen as, and the condition that defines it.
        var description: (type: String, condition: String) {
            switch self {
            case .signupKeyboardCoversAction:
                ("keyboard", "input_mode=zh-Hans-pinyin, landscape phone, docked software keyboard: the end frame of did_show/did_change_frame intersects the action (signup button) frame")
            case .permissionsDeniedWithoutGuidance: ("permission_denied", "permission=location, guidance_shown=false")
            case .profileNetworkErrorWithoutFeedback: ("network_error", "feedback_shown=false")
            case .welcomeNetworkErrorWithFeedback, .signupNetworkErrorWithFeedback: ("network_error", "feedback_shown=true")
            case .welcomeMultiTouch: ("multi_touch", "bad_state=false")
            case .welcomeRotation, .signupRotation, .permissionsRotation, .profileRotation:
                ("rotation", "device rotated on the screen (with spurious keyboard hide/show when the keyboard was up)")
            case .signupValidationErrorWithMessage, .profileValidationErrorWithMessage:
                ("validation_error", "message_shown=true")
            case .profileKeyboardNotCovering: ("keyboard", "keyboard shown; its end frame never intersects focus, action or caret")
            case .profilePermissionDeniedWithGuidance: ("permission_denied", "permission=photos, guidance_shown=true")
            }
        }
    }
}

/// A device family: window size in portrait and its keyboards' heights, in window points.
struct Device {
    let width: Int
    let height: Int
    let keyboardPortrait: Int
    let candidateBar: Int
    let isTablet: Bool

    static let iPhone = Device(width: 390, height: 844, keyboardPortrait: 291, candidateBar: 45, isTablet: false)
    static let iPhoneMax = Device(width: 430, height: 932, keyboardPortrait: 301, candidateBar: 45, isTablet: false)
    static let iPad = Device(width: 820, height: 1180, keyboardPortrait: 313, candidateBar: 55, isTablet: true)
    static let android = Device(width: 412, height: 915, keyboardPortrait: 280, candidateBar: 50, isTablet: false)
    static let androidSmall = Device(width: 360, height: 800, keyboardPortrait: 270, candidateBar: 50, isTablet: false)
    static let tabletShareOfIOS = 0.15
}

/// A rectangle in window points; all zeros means "unknown" in keyboard telemetry.
struct Frame: Equatable {
    var x: Int
    var y: Int
    var w: Int
    var h: Int

    static let zero = Frame(x: 0, y: 0, w: 0, h: 0)
    var isZero: Bool { x == 0 && y == 0 && w == 0 && h == 0 }

    func intersects(_ other: Frame) -> Bool {
        w > 0 && h > 0 && other.w > 0 && other.h > 0
            && x < other.x + other.w && other.x < x + w && y < other.y + other.h && other.y < y + h
    }
}
