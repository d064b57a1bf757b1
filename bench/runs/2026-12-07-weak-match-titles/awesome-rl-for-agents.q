judged-en	benchmarks where language agents browse lifelike self-hosted websites (shops, forums, code hosting) to accomplish user goals
judged-en	teaching LLMs to resolve issues in actual codebases, with passing tests serving as the reward
judged-en	learning directly from chosen-vs-rejected response pairs, skipping the reward-model-plus-PPO pipeline
judged-en	cooperative teams of learners that share a joint critic during training but act independently at test time
judged-en	agents exploiting flawed or tampered reward signals, and safety risks of badly specified objectives
judged-en	robot foundation policies that turn camera images and language instructions into motor commands
judged-en	separating the rollout/environment side from the optimiser so existing LLM agent code can be trained with RL at scale
judged-en	rewarding each intermediate reasoning step instead of only the final answer on math problems
judged-en	agents that learn to play Minecraft using large amounts of internet data
judged-en	benchmark for agents controlling a full operating system desktop GUI across many programs
judged-zh	用AI反馈代替人工标注来训练更无害的助手模型
judged-zh	让大模型通过强化学习学会在多轮推理中调用代码解释器
judged-zh	评估大语言模型作为智能体在多种交互环境中表现的综合基准
judged-zh	不需要成对偏好数据、只用“好/不好”二元标签就能做对齐的方法
judged-zh	多个智能体在捉迷藏对抗中自发学会利用环境中的物体
judged-zh	用扩散模型生成机器人动作的模仿学习方法
judged-zh	模型自己充当评委给自己的回答打分，并迭代提升自身能力
judged-zh	把离线强化学习看成序列建模问题，用Transformer根据期望回报生成动作
judged-zh	面向企业知识工作者日常办公流程的浏览器智能体评测基准
judged-zh	不需要价值网络、用组内相对优势估计的强化学习算法来提升数学推理
judged-mixed	用 RL 训练 LLM agent 做长程多轮交互决策，有哪些开源 framework？
judged-mixed	在 agent planning 中根据 tool 调用是否完整来设计 reward
judged-mixed	RLHF 里人类反馈和 reward model 本身有哪些缺陷，会导致什么问题
judged-mixed	LLM-as-a-judge 的 evaluator 怎样才能和人类的评判标准保持一致
judged-mixed	先用 demonstration 做 SFT，再在 simulation 里用 RL 微调 VLA policy 并迁移到真实机器人
off	protein folding with diffusion models
off	predicting stock prices from financial news sentiment
off	image segmentation of brain MRI scans
off	speech recognition for low-resource languages
off	graph neural networks for molecule property prediction
off	forecasting wildfire spread from satellite images
off	learned cost models for database query optimization
off	neural image compression codecs
off	music genre classification from audio
off	detecting traffic signs for autonomous driving
off	recommender systems for e-commerce click-through prediction
off	knowledge distillation for compressing BERT
off	蛋白质结构预测
off	股票价格预测
off	医学图像分割
off	低资源语言的语音识别
off	分子性质预测的图神经网络
off	卫星图像中的森林火灾预测
off	数据库查询优化
off	神经图像压缩
off	音乐流派分类
off	电商推荐系统的点击率预估
off	用 diffusion model 做蛋白质折叠
off	基于 transformer 的股票预测
off	MRI 图像分割方法
off	graph neural network 预测分子性质
off	speech recognition 低资源语言
off	电商 recommender system 点击率
off	estimating crop yields from weather and soil data
off	detecting credit card fraud in transaction streams
off	predicting earthquake aftershocks from seismograph records
off	identifying bird species from recordings of their songs
off	sentiment analysis of product reviews
off	handwritten digit recognition with convolutional networks
off	spam filtering for email
off	estimating a person's age from a face photo
off	low-latency video compression for video conferencing
off	correcting systematic errors of numerical weather forecasts
off	农作物产量预测
off	信用卡欺诈检测
off	地震余震预测
off	鸟类鸣声识别
off	手写数字识别
off	垃圾邮件过滤
off	人脸年龄估计
off	商品评论情感分析
off	视频会议的低延迟视频压缩
off	数值天气预报的误差订正
off	用 CNN 做手写数字识别
off	credit card 交易的欺诈检测方法
off	基于 LSTM 的农作物产量预测
off	email spam 过滤
off	bird song 鸟类识别
off	face photo 人脸年龄估计
off	seismic 数据的地震余震预测
off	product review 情感分析
off	video conferencing 的低延迟压缩
off	weather forecast 数值模式订正
