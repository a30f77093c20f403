#include "model_list_model.h"

#include <QDesktopServices>
#include <QDir>

#include "ft/error.h"
#include "ft/paths.h"

namespace ft::ui {

namespace {
QString describe(const ft::Error& e) {
    QString s = QString::fromStdString(e.message());
    if (!e.hint().empty()) s += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return s;
}
}  // namespace

ModelListModel::ModelListModel(QObject* parent) : QAbstractListModel(parent) {
    try {
        m_library = std::make_unique<ModelLibrary>();
        m_rows = m_library->models();
    } catch (const ft::Error& e) {
        m_lastError = describe(e);
    }
}

ModelListModel::~ModelListModel() = default;

int ModelListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const ModelRecord& r = m_rows[index.row()];
    switch (role) {
    case IdRole: return r.id;
    case PathRole: return r.path;
    case Qt::DisplayRole:
    case NameRole: return r.displayName;
    case FormatRole: return r.format;
    case SizeRole: return static_cast<double>(r.sizeBytes);
    case AddedRole: return r.addedAt.toLocalTime();
    default: return {};
    }
}

QHash<int, QByteArray> ModelListModel::roleNames() const {
    return {{IdRole, "modelId"}, {PathRole, "path"},        {NameRole, "name"},
            {FormatRole, "format"}, {SizeRole, "sizeBytes"}, {AddedRole, "addedAt"}};
}

QString ModelListModel::databasePath() const { return m_library ? m_library->databasePath() : QString(); }

QString ModelListModel::modelsDir() const {
    try {
        return QString::fromStdString(ft::models_dir().string());
    } catch (const ft::Error& e) {
        return describe(e);
    }
}

bool ModelListModel::addUrl(const QUrl& url) { return addPath(url.isLocalFile() ? url.toLocalFile() : url.toString()); }

bool ModelListModel::addPath(const QString& path) {
    if (!m_library) return false;
    try {
        const ModelRecord r = m_library->add(path);
        beginInsertRows({}, 0, 0);
        m_rows.prepend(r);
        endInsertRows();
        emit countChanged();
        setError({});
        return true;
    } catch (const ft::Error& e) {
        setError(describe(e));
        return false;
    }
}

bool ModelListModel::remove(qint64 id) {
    if (!m_library) return false;
    try {
        if (!m_library->remove(id)) return false;
    } catch (const ft::Error& e) {
        setError(describe(e));
        return false;
    }
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].id != id) continue;
        beginRemoveRows({}, i, i);
        m_rows.removeAt(i);
        endRemoveRows();
        emit countChanged();
        break;
    }
    return true;
}

void ModelListModel::reload() {
    if (!m_library) return;
    try {
        beginResetModel();
        m_rows = m_library->models();
        endResetModel();
        emit countChanged();
    } catch (const ft::Error& e) {
        endResetModel();
        setError(describe(e));
    }
}

void ModelListModel::clearError() { setError({}); }

void ModelListModel::openModelsFolder() const { QDesktopServices::openUrl(QUrl::fromLocalFile(modelsDir())); }

void ModelListModel::setError(const QString& error) {
    if (error == m_lastError) return;
    m_lastError = error;
    emit lastErrorChanged();
}

}  // namespace ft::ui
