import QtQuick
import FreeToken.Ui

// A small area chart of measured fractions (0..1), newest on the right; `capacity` samples span the width.
Canvas {
    id: chart
    property var values: []
    property int capacity: 60
    property color stroke: Theme.accent
    implicitHeight: 44
    onValuesChanged: requestPaint()
    onStrokeChanged: requestPaint()
    onWidthChanged: requestPaint()
    Connections {
        target: Theme
        function onDarkChanged() { chart.requestPaint() }
    }

    onPaint: {
        const ctx = getContext("2d")
        ctx.reset()
        ctx.fillStyle = Theme.track
        ctx.fillRect(0, height - 1, width, 1)  // baseline: the chart's full width is `capacity` samples
        const n = values ? values.length : 0
        if (n < 2 || width <= 0) return
        const step = width / (capacity - 1)
        const x0 = width - (n - 1) * step
        const y = v => 2 + (height - 4) * (1 - Math.max(0, Math.min(1, v)))
        ctx.beginPath()
        ctx.moveTo(x0, height)
        for (let i = 0; i < n; ++i) ctx.lineTo(x0 + i * step, y(values[i]))
        ctx.lineTo(width, height)
        ctx.closePath()
        ctx.fillStyle = Qt.rgba(stroke.r, stroke.g, stroke.b, 0.14)
        ctx.fill()
        ctx.beginPath()
        for (let j = 0; j < n; ++j) {
            if (j === 0) ctx.moveTo(x0, y(values[0]))
            else ctx.lineTo(x0 + j * step, y(values[j]))
        }
        ctx.lineWidth = 1.5
        ctx.strokeStyle = stroke
        ctx.stroke()
    }
}
