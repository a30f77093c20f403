// Which graphics API Qt Quick draws the window with. On Windows Qt Quick's default is Direct3D 11; where it cannot
// work the window would not appear (or appear empty), so the app checks it first and otherwise picks OpenGL, and
// where OpenGL does not work either, Qt Quick's software renderer: every PC gets a window.
//   Direct3D 11 works when a device can be created (hardware, or WARP, Windows' software rasterizer, which Qt Quick
//   falls back to by itself) and d3dcompiler_47.dll compiles HLSL in the form Qt Quick's shaders have (their HLSL is
//   compiled at run time; a cbuffer with packoffset, which Wine 8's compiler rejects: under Wine the window opens but
//   nothing is drawn).
//   OpenGL works when a context of version 2.0 or newer can be made current on an offscreen surface.
// QSG_RHI_BACKEND or QT_QUICK_BACKEND, when set, are Qt's own choice by the user and are left alone. Elsewhere than
// Windows nothing is changed (Qt Quick's default there is OpenGL).
#pragma once

#include <QString>

namespace ft::app {

struct GraphicsChoice {
    QString api;     // "Direct3D 11", "OpenGL", "software", or what the user set ("QSG_RHI_BACKEND=opengl")
    QString reason;  // why the default was not used ("" when it was)
};

// Call after the QGuiApplication exists and before the first window is created.
GraphicsChoice choose_graphics_api();

}  // namespace ft::app
