#include "graphics_api.h"

#include <QByteArray>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QQuickWindow>
#include <QSGRendererInterface>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <d3d11.h>
#include <d3dcompiler.h>
#endif

namespace ft::app {

namespace {

#ifdef _WIN32
QString hresult_text(HRESULT hr) { return QStringLiteral("HRESULT 0x%1").arg(quint32(hr), 8, 16, QLatin1Char('0')); }

// A Direct3D 11 device, hardware or WARP. Both DLLs are loaded at run time, as Qt does: nothing is linked.
bool d3d11_device_works(QString& why) {
    HMODULE dll = ::LoadLibraryW(L"d3d11.dll");
    if (!dll) {
        why = QStringLiteral("d3d11.dll cannot be loaded");
        return false;
    }
    const auto create = reinterpret_cast<PFN_D3D11_CREATE_DEVICE>(
        reinterpret_cast<void*>(::GetProcAddress(dll, "D3D11CreateDevice")));
    HRESULT hr = E_FAIL;
    if (create) {
        for (const D3D_DRIVER_TYPE type : {D3D_DRIVER_TYPE_HARDWARE, D3D_DRIVER_TYPE_WARP}) {
            ID3D11Device* device = nullptr;
            ID3D11DeviceContext* context = nullptr;
            D3D_FEATURE_LEVEL level{};
            hr = create(nullptr, type, nullptr, 0, nullptr, 0, D3D11_SDK_VERSION, &device, &level, &context);
            if (context) context->Release();
            if (device) device->Release();
            if (SUCCEEDED(hr)) break;
        }
    }
    ::FreeLibrary(dll);
    if (!create) why = QStringLiteral("d3d11.dll has no D3D11CreateDevice");
    else if (FAILED(hr)) why = QStringLiteral("no Direct3D 11 device (%1)").arg(hresult_text(hr));
    return create && SUCCEEDED(hr);
}

// Qt Quick ships its shaders as HLSL source and compiles them with d3dcompiler_47.dll when the window first draws.
// This vertex shader has the shape of theirs (SPIR-V Cross output: a cbuffer whose members carry packoffset, a
// row-major matrix, TEXCOORD inputs).
bool hlsl_compiler_works(QString& why) {
    static const char kSource[] =
        "cbuffer buf : register(b0)\n"
        "{\n"
        "    row_major float4x4 ubuf_matrix : packoffset(c0);\n"
        "    float ubuf_opacity : packoffset(c4);\n"
        "};\n"
        "struct SPIRV_Cross_Input { float4 vertexCoord : TEXCOORD0; float4 vertexColor : TEXCOORD1; };\n"
        "struct SPIRV_Cross_Output { float4 color : TEXCOORD0; float4 gl_Position : SV_Position; };\n"
        "SPIRV_Cross_Output main(SPIRV_Cross_Input i)\n"
        "{\n"
        "    SPIRV_Cross_Output o;\n"
        "    o.color = i.vertexColor * ubuf_opacity;\n"
        "    o.gl_Position = mul(i.vertexCoord, ubuf_matrix);\n"
        "    return o;\n"
        "}\n";
    HMODULE dll = ::LoadLibraryW(L"d3dcompiler_47.dll");
    if (!dll) {
        why = QStringLiteral("d3dcompiler_47.dll cannot be loaded");
        return false;
    }
    const auto compile = reinterpret_cast<pD3DCompile>(reinterpret_cast<void*>(::GetProcAddress(dll, "D3DCompile")));
    bool ok = false;
    if (!compile) {
        why = QStringLiteral("d3dcompiler_47.dll has no D3DCompile");
    } else {
        ID3DBlob* code = nullptr;
        ID3DBlob* errors = nullptr;
        const HRESULT hr = compile(kSource, sizeof(kSource) - 1, nullptr, nullptr, nullptr, "main", "vs_5_0", 0, 0,
                                   &code, &errors);
        ok = SUCCEEDED(hr) && code;
        if (!ok) {
            QByteArray detail = errors ? QByteArray(static_cast<const char*>(errors->GetBufferPointer()),
                                                    qsizetype(errors->GetBufferSize()))
                                       : QByteArray();
            why = QStringLiteral("the HLSL compiler (d3dcompiler_47.dll) rejects Qt Quick's shaders (%1%2)")
                      .arg(hresult_text(hr), detail.trimmed().isEmpty() ? QString()
                                                                        : QStringLiteral(": ") + QString::fromLocal8Bit(detail.trimmed()));
        }
        if (code) code->Release();
        if (errors) errors->Release();
    }
    ::FreeLibrary(dll);
    return ok;
}

bool opengl_works(QString& why) {
    QOpenGLContext context;
    if (!context.create()) {
        why = QStringLiteral("no OpenGL context can be created");
        return false;
    }
    QOffscreenSurface surface;
    surface.setFormat(context.format());
    surface.create();
    if (!context.makeCurrent(&surface)) {
        why = QStringLiteral("the OpenGL context cannot be made current");
        return false;
    }
    const QSurfaceFormat f = context.format();
    context.doneCurrent();
    if (f.majorVersion() < 2) {
        why = QStringLiteral("OpenGL %1.%2 is older than 2.0").arg(f.majorVersion()).arg(f.minorVersion());
        return false;
    }
    return true;
}
#endif

}  // namespace

GraphicsChoice choose_graphics_api() {
    for (const char* var : {"QSG_RHI_BACKEND", "QT_QUICK_BACKEND"})
        if (!qEnvironmentVariableIsEmpty(var))
            return {QString::fromLatin1(var) + QLatin1Char('=') + qEnvironmentVariable(var), QStringLiteral("set by the user")};
#ifdef _WIN32
    QString d3d_why;
    if (d3d11_device_works(d3d_why) && hlsl_compiler_works(d3d_why)) return {QStringLiteral("Direct3D 11"), {}};
    QString gl_why;
    if (opengl_works(gl_why)) {
        QQuickWindow::setGraphicsApi(QSGRendererInterface::OpenGL);
        return {QStringLiteral("OpenGL"), QStringLiteral("Direct3D 11: ") + d3d_why};
    }
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    return {QStringLiteral("software"), QStringLiteral("Direct3D 11: %1; OpenGL: %2").arg(d3d_why, gl_why)};
#else
    return {QStringLiteral("Qt Quick's default"), {}};
#endif
}

}  // namespace ft::app
