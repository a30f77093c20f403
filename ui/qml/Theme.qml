pragma Singleton
import QtQuick

// Colors, spacing and type of both themes. `dark` is bound by Main.qml to the saved setting.
QtObject {
    property bool dark: true
    property string monoFamily: "monospace"

    readonly property color bg: dark ? "#0e1116" : "#f5f6f8"
    readonly property color sidebar: dark ? "#12151b" : "#eceef2"
    readonly property color surface: dark ? "#171b22" : "#ffffff"
    readonly property color surfaceAlt: dark ? "#1c2129" : "#f4f5f8"
    readonly property color hover: dark ? "#212731" : "#e6e9ee"
    readonly property color selected: dark ? "#242b36" : "#dfe3ea"
    readonly property color border: dark ? "#252b35" : "#e1e4ea"
    readonly property color borderStrong: dark ? "#333b48" : "#cdd2db"
    readonly property color text: dark ? "#e7eaf0" : "#151921"
    readonly property color textMuted: dark ? "#9ba4b3" : "#586170"
    readonly property color textFaint: dark ? "#687283" : "#8a92a0"
    readonly property color accent: dark ? "#5b9bff" : "#2d6ae0"
    readonly property color accentHover: dark ? "#77acff" : "#2459c2"
    readonly property color accentSoft: dark ? Qt.rgba(0.36, 0.61, 1.0, 0.13) : Qt.rgba(0.18, 0.42, 0.88, 0.09)
    readonly property color accentText: "#ffffff"
    readonly property color success: dark ? "#4cc38a" : "#1c9a5e"
    readonly property color warning: dark ? "#efb44e" : "#b7741a"
    readonly property color danger: dark ? "#f26b6d" : "#d43f42"
    readonly property color dangerSoft: dark ? Qt.rgba(0.95, 0.42, 0.43, 0.12) : Qt.rgba(0.83, 0.25, 0.26, 0.08)
    readonly property color track: dark ? "#252b35" : "#e3e6eb"

    // Spacing scale (px) and corner radii.
    readonly property int s1: 4
    readonly property int s2: 8
    readonly property int s3: 12
    readonly property int s4: 16
    readonly property int s5: 20
    readonly property int s6: 24
    readonly property int s7: 32
    readonly property int radius: 12
    readonly property int radiusSmall: 8

    // Type scale (px).
    readonly property int fontDisplay: 28
    readonly property int fontTitle: 16
    readonly property int fontBody: 14
    readonly property int fontSmall: 13
    readonly property int fontCaption: 12
    readonly property int fontValue: 26

    function levelColor(level) {
        if (level >= 4) return danger
        if (level === 3) return warning
        if (level === 2) return accent
        return textFaint
    }

    // A figure with `decimals` digits after the decimal sign, in the app's language's number format (Qt.locale():
    // its decimal sign, digit grouping and digits; toFixed() would always write "0.5"). Reading Qt.uiLanguage makes a
    // binding that shows the figure format it again when the language changes.
    function fixed(n, decimals) {
        Qt.uiLanguage
        return Number(n).toLocaleString(Qt.locale(), "f", decimals)
    }
    // 17179869184 -> "16.0 GiB"; figures are binary units, as GPU tools show them.
    function bytes(n) {
        if (n === undefined || n === null || isNaN(n)) return "—"
        const units = ["B", "KiB", "MiB", "GiB", "TiB"]
        let i = 0
        while (n >= 1024 && i < units.length - 1) { n /= 1024; ++i }
        return fixed(n, i === 0 || n >= 100 ? 0 : 1) + " " + units[i]
    }
    function gib(n) { return fixed(n / 1073741824, 1) }
}
