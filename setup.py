"Packaging for nbdev 2: every setting lives in settings.ini; edit it there, not here."
from configparser import ConfigParser
import setuptools

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

expected = 'version description keywords author author_email lib_name user branch license status min_python audience language'.split()
for key in expected: assert key in cfg, f'missing expected setting: {key}'

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License')}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
requirements = cfg.get('requirements', '').split()
dev_requirements = cfg.get('dev_requirements', '').split()
extras = {'dev': dev_requirements, **{name: cfg.get(f'{name}_requirements', '').split() for name in ('tinker', 'local', 'modal', 'openevolve')}}
package_data = {cfg['lib_name']: cfg.get('package_data', '').split()}

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    keywords=cfg['keywords'],
    author=cfg['author'],
    author_email=cfg['author_email'],
    license=lic[0],
    classifiers=['Development Status :: ' + statuses[int(cfg['status']) - 1],
                 'Intended Audience :: ' + cfg['audience'].title(),
                 'Natural Language :: ' + cfg['language'].title(),
                 'Programming Language :: Python :: 3.11', 'Programming Language :: Python :: 3.12']
                + (['License :: ' + lic[1]] if lic[1] else []),
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=[cfg['lib_name'], cfg['lib_name'] + '.*']),
    include_package_data=True,
    package_data=package_data,
    install_requires=requirements,
    extras_require=extras,
    python_requires='>=' + cfg['min_python'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    zip_safe=False,
    entry_points={'console_scripts': cfg.get('console_scripts', '').split(),
                  'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d']})
